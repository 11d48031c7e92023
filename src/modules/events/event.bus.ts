import { Client } from 'pg';
import { queryClient } from '../../db/prepared';
import type { Logger } from '../../log';
import { EVENTS_CHANNEL, type EventType } from './event.outbox';

/** An event as the bus hands it out. */
export interface BusEvent {
  id: string;
  account_id: number;
  type: EventType;
  data: Record<string, any>;
  /** The id of the transaction that wrote it (its row's xmin), which is its cause's: see event.initial.ts. */
  xid: string;
}

type Listener = (event: BusEvent) => void;

/**
 * Pieces of conversations as they are written (conversation.stream.ts): NOTIFYs on their own
 * channel, not events (no row, no webhook), their JSON the payload itself.
 */
export const CONVERSATIONS_CHANNEL = 'vozgate_conversations';
export interface ConversationPiece {
  /** The account. */
  a: number;
  /** The conversation's uuid. */
  u: string;
  /** Text of the reply being written. */
  d?: string;
  /** A message stored: its id. */
  m?: string;
}
type PieceListener = (piece: ConversationPiece) => void;

/** A test run's result landed or its status changed (modules/assistant-tests/test.stream.ts): NOTIFYs on their own channel, like conversations'. */
export const TEST_RUNS_CHANNEL = 'vozgate_test_runs';
export interface TestRunPiece {
  /** The account. */
  a: number;
  /** The run. */
  r: number;
  /** The result that landed: its id. */
  t?: string;
}
type TestRunListener = (piece: TestRunPiece) => void;

/** Events a slow subscriber may have waiting before its stream is ended. */
const MAX_QUEUED = 1000;
const RECONNECT_MS = [100, 500, 1000, 2000, 5000];

/**
 * This process's view of the event stream: one connection LISTENs on the events channel;
 * a notification names the ids of events just committed (by any process), which are read
 * in one statement and handed to this process's listeners of their account. Nothing is read
 * while nobody listens. The connection comes back by itself when the database drops it.
 */
export class EventBus {
  private client: Client | null = null;
  private readonly listeners = new Map<number, Set<Listener>>();
  private readonly pieceListeners = new Map<number, Set<PieceListener>>();
  private readonly testRunListeners = new Map<number, Set<TestRunListener>>();
  private pending: string[] = [];
  private reading: Promise<void> | null = null;
  private stopped = false;
  private attempt = 0;

  constructor(
    private readonly databaseUrl: string,
    private readonly logger?: Logger,
  ) {}

  async start(): Promise<void> {
    const client = new Client({ connectionString: this.databaseUrl });
    client.on('notification', (message) => {
      if (message.channel === EVENTS_CHANNEL && message.payload && this.listeners.size > 0) this.enqueue(message.payload.split(','));
      if (message.channel === CONVERSATIONS_CHANNEL && message.payload && this.pieceListeners.size > 0) this.piece(message.payload);
      if (message.channel === TEST_RUNS_CHANNEL && message.payload && this.testRunListeners.size > 0) this.testRunPiece(message.payload);
    });
    client.on('error', (error) => {
      this.logger?.warn('events: the LISTEN connection broke', { message: error.message });
      this.broken(client);
    });
    client.on('end', () => this.broken(client));
    try {
      await client.connect();
      await client.query(`listen ${EVENTS_CHANNEL}; listen ${CONVERSATIONS_CHANNEL}; listen ${TEST_RUNS_CHANNEL}`);
    } catch (error) {
      client.removeAllListeners();
      client.on('error', () => {});
      await client.end().catch(() => {});
      throw error;
    }
    this.client = client;
    this.attempt = 0;
  }

  private broken(client: Client): void {
    if (this.stopped || this.client !== client) return;
    this.client = null;
    client.removeAllListeners();
    client.on('error', () => {});
    client.end().catch(() => {});
    this.retry();
  }

  /** LISTENs again after a pause that grows with each failure. */
  private retry(): void {
    const delay = RECONNECT_MS[Math.min(this.attempt++, RECONNECT_MS.length - 1)];
    setTimeout(() => {
      if (this.stopped) return;
      this.start().catch((error) => {
        this.logger?.warn('events: could not LISTEN again; retrying', { message: (error as Error).message });
        this.retry();
      });
    }, delay).unref();
  }

  /** Calls `listener` with each event of the account from now on; answers how to stop. */
  listen(accountId: number, listener: Listener): () => void {
    let set = this.listeners.get(accountId);
    if (!set) this.listeners.set(accountId, (set = new Set()));
    set.add(listener);
    return () => {
      set!.delete(listener);
      if (set!.size === 0) this.listeners.delete(accountId);
    };
  }

  /**
   * The account's events that pass `accept`, as an async iterator (a GraphQL subscription's
   * source). A subscriber that falls MAX_QUEUED events behind has its stream ended.
   */
  iterate(accountId: number, accept: (event: BusEvent) => boolean): AsyncIterableIterator<BusEvent> {
    return subscriberStream<BusEvent>(
      (push) => this.listen(accountId, (event) => {
        if (accept(event)) push(event);
      }),
      () => this.logger?.warn('events: a subscriber fell too far behind; its stream is ended', { account_id: accountId }),
    );
  }

  /** Calls `listener` with each piece of the account's conversations from now on; answers how to stop. */
  listenConversations(accountId: number, listener: PieceListener): () => void {
    let set = this.pieceListeners.get(accountId);
    if (!set) this.pieceListeners.set(accountId, (set = new Set()));
    set.add(listener);
    return () => {
      set!.delete(listener);
      if (set!.size === 0) this.pieceListeners.delete(accountId);
    };
  }

  /** Calls `listener` with each change of the account's test runs from now on; answers how to stop. */
  listenTestRuns(accountId: number, listener: TestRunListener): () => void {
    let set = this.testRunListeners.get(accountId);
    if (!set) this.testRunListeners.set(accountId, (set = new Set()));
    set.add(listener);
    return () => {
      set!.delete(listener);
      if (set!.size === 0) this.testRunListeners.delete(accountId);
    };
  }

  private testRunPiece(payload: string): void {
    let piece: TestRunPiece;
    try {
      piece = JSON.parse(payload) as TestRunPiece;
    } catch {
      return;
    }
    for (const listener of this.testRunListeners.get(piece.a) ?? []) listener(piece);
  }

  private piece(payload: string): void {
    let piece: ConversationPiece;
    try {
      piece = JSON.parse(payload) as ConversationPiece;
    } catch {
      return;
    }
    for (const listener of this.pieceListeners.get(piece.a) ?? []) listener(piece);
  }

  /** Notifications arriving together are read together. */
  private enqueue(ids: string[]): void {
    this.pending.push(...ids);
    this.reading ??= Promise.resolve().then(() => this.read());
  }

  private async read(): Promise<void> {
    try {
      while (this.pending.length && this.client) {
        const ids = this.pending.splice(0);
        const { rows } = await queryClient<BusEvent>(this.client, {
          text: 'select id::text, account_id, type, data, xmin::text as xid from events where id = any($1::bigint[]) order by id',
          values: [ids],
        });
        for (const event of rows) {
          for (const listener of this.listeners.get(event.account_id) ?? []) listener(event);
        }
      }
    } catch (error) {
      this.logger?.warn('events: could not read events', { message: (error as Error).message });
    } finally {
      this.reading = null;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const client = this.client;
    this.client = null;
    for (const set of this.listeners.values()) set.clear();
    this.listeners.clear();
    this.pieceListeners.clear();
    this.testRunListeners.clear();
    if (client) {
      client.removeAllListeners();
      client.on('error', () => {});
      await client.end().catch(() => {});
    }
  }
}

/**
 * What a subscriber reads from a listener (`listen` takes the push and answers how to stop), as
 * an async iterator: each value in order, those it has not read yet queued up to MAX_QUEUED;
 * one more and its stream is ended (`behind` says so), so that a slow subscriber never holds
 * the process's memory nor slows the others.
 */
export function subscriberStream<T>(listen: (push: (value: T) => void) => () => void, behind: () => void): AsyncIterableIterator<T> {
  const queue: T[] = [];
  let waiting: ((result: IteratorResult<T>) => void) | null = null;
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    unlisten();
    waiting?.({ value: undefined, done: true });
    waiting = null;
  };
  const unlisten = listen((value) => {
    if (done) return;
    if (waiting) {
      const resolve = waiting;
      waiting = null;
      resolve({ value, done: false });
    } else if (queue.length < MAX_QUEUED) {
      queue.push(value);
    } else {
      behind();
      finish();
    }
  });
  return {
    next: () => {
      if (queue.length) return Promise.resolve({ value: queue.shift()!, done: false });
      if (done) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve) => (waiting = resolve));
    },
    return: () => {
      finish();
      return Promise.resolve({ value: undefined, done: true });
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
