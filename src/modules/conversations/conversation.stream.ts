import type { EntityManager } from '@mikro-orm/postgresql';
import { selectPrepared } from '../../db/prepared';
import type { Logger } from '../../log';
import { CONVERSATIONS_CHANNEL, subscriberStream, type ConversationPiece, type EventBus } from '../events/event.bus';

/**
 * A conversation's reply as the model writes it, to `conversationUpdated` subscribers of every
 * API process: NOTIFYs on their own channel (a token is no event to keep), one at a time in
 * order, at most one every PIECE_MS, the text written meanwhile gathered into the next. So the
 * reply never waits for a subscriber, a model that writes a token every few milliseconds costs
 * the database a statement every PIECE_MS, not one a token, and a slow database sends fewer,
 * longer pieces instead of queueing them.
 */
export class ReplyStream {
  private buffer = '';
  private sending: Promise<void> | null = null;
  /** The reply is whole: what is left goes at once, without the wait between pieces. */
  private whole = false;
  private hurry: (() => void) | null = null;

  constructor(
    private readonly em: EntityManager,
    private readonly accountId: number,
    private readonly uuid: string,
    private readonly logger?: Logger,
  ) {}

  write(delta: string): void {
    if (!delta) return;
    this.buffer += delta;
    this.sending ??= this.send();
  }

  /** Everything written is sent (before the stored reply is announced, so that it comes last). */
  async flush(): Promise<void> {
    this.whole = true;
    this.hurry?.();
    while (this.sending) await this.sending;
  }

  private async send(): Promise<void> {
    try {
      while (this.buffer) {
        // A NOTIFY payload holds 8,000 bytes: a piece of PIECE_CHARS characters, escaped as JSON, fits.
        const delta = this.buffer.slice(0, PIECE_CHARS);
        this.buffer = this.buffer.slice(delta.length);
        await notify(this.em, { a: this.accountId, u: this.uuid, d: delta });
        if (this.whole) continue;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, PIECE_MS);
          this.hurry = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.hurry = null;
      }
    } catch (error) {
      // Subscribers miss some text, and still get the stored reply; the reply goes on.
      this.buffer = '';
      this.logger?.warn('conversations: a piece of a reply could not be streamed', { message: (error as Error).message });
    } finally {
      this.sending = null;
    }
  }
}

const PIECE_CHARS = 1000;
/** The least time between two pieces of a reply: a subscriber's screen still sees the words come. */
const PIECE_MS = 50;

/** The stored message `messageId` announced to subscribers, at the commit of `tx` (which stored it). */
export function announceMessage(tx: EntityManager, accountId: number, uuid: string, messageId: string): Promise<void> {
  return notify(tx, { a: accountId, u: uuid, m: messageId });
}

/** A stored message as it is read back. */
export interface StoredMessage {
  id: string;
  role: string;
  content: string;
  created_at: Date;
}

/** A piece of SQL with its `?` values. */
export interface SqlPart {
  sql: string;
  params: unknown[];
}

/**
 * Stores a message of the conversation (`id`, `uuid`) and announces it at the commit of `tx`,
 * in one statement (announceMessage's piece, written in SQL). `alongside`, a data-modifying
 * statement with RETURNING (the conversation's own update), runs in the same statement: its row
 * comes back as `alongside`, as JSON.
 *
 * `announce`: whether to announce it, an SQL boolean over `c` (alongside's row) or a `?` value
 * (after alongside's values). Only a subscription reads the announcement, and a subscription
 * marks its conversation watched before it is established (watchConversation): a message
 * stored while nobody watches is announced to nobody, and costs no notification. An update of
 * the conversation in `alongside` reads `watched_until` as the subscription's update left it,
 * once that update's lock is released: no announcement is lost to the race between the two.
 */
export async function storeAnnounced<R = never>(
  tx: EntityManager,
  accountId: number,
  conversation: { id: string; uuid: string },
  role: string,
  content: string,
  alongside?: SqlPart,
  announce: SqlPart = { sql: 'true', params: [] },
): Promise<StoredMessage & { alongside: R }> {
  return (await store<R>(tx, accountId, conversation, role, content, alongside, announce, false))!;
}

/**
 * storeAnnounced, with the message stored only when `alongside` returns its row (an update
 * whose condition may no longer hold): else the statement writes nothing and answers null.
 */
export function storeAnnouncedIf<R>(
  em: EntityManager,
  accountId: number,
  conversation: { id: string; uuid: string },
  role: string,
  content: string,
  alongside: SqlPart,
  announce: SqlPart,
): Promise<(StoredMessage & { alongside: R }) | null> {
  return store<R>(em, accountId, conversation, role, content, alongside, announce, true);
}

async function store<R>(
  em: EntityManager,
  accountId: number,
  conversation: { id: string; uuid: string },
  role: string,
  content: string,
  alongside: SqlPart | undefined,
  announce: SqlPart,
  onlyWith: boolean,
): Promise<(StoredMessage & { alongside: R }) | null> {
  const message = [conversation.id, role, content];
  const insert = `m as (
       insert into conversation_messages (conversation_id, role, content, created_at)
       ${onlyWith ? 'select ?::bigint, ?::text, ?::text, clock_timestamp() from c' : 'values (?, ?, ?, clock_timestamp())'} returning id, role, content, created_at)`;
  const ctes = !alongside ? [insert] : onlyWith ? [`c as (${alongside.sql})`, insert] : [insert, `c as (${alongside.sql})`];
  const [row] = await selectPrepared<StoredMessage & { alongside: R }>(
    em,
    `with ${ctes.join(', ')}
     select m.id::text, m.role, m.content, m.created_at,
       case when ${announce.sql} then pg_notify(?, json_build_object('a', ?::int, 'u', ?::text, 'm', m.id::text)::text) end
       ${alongside ? ', (select row_to_json(c) from c) as alongside' : ''}
     from m${alongside ? ' left join c on true' : ''}`,
    [
      ...(onlyWith ? [...alongside!.params, ...message] : [...message, ...(alongside?.params ?? [])]),
      ...announce.params,
      CONVERSATIONS_CHANNEL,
      accountId,
      conversation.uuid,
    ],
  );
  return row ?? null;
}

async function notify(em: EntityManager, piece: ConversationPiece): Promise<void> {
  await selectPrepared(em, 'select pg_notify(?, ?)', [CONVERSATIONS_CHANNEL, JSON.stringify(piece)]);
}

/** How long a subscriber's watch of a conversation lasts unless renewed, and how often a live subscription renews it. */
const WATCH_SECONDS = 60;
const WATCH_RENEW_MS = 30_000;

/**
 * Marks the account's conversation `uuid` as followed for WATCH_SECONDS: its replies are
 * streamed piece by piece meanwhile. False when the account has no such conversation.
 */
export async function watchConversation(em: EntityManager, accountId: number, uuid: string): Promise<boolean> {
  const rows = await selectPrepared(em, 'update conversations set watched_until = now() + make_interval(secs => ?) where uuid = ?::uuid and account_id = ? returning id', [
    WATCH_SECONDS,
    uuid,
    accountId,
  ]);
  return rows.length > 0;
}

/**
 * The pieces of one conversation of the account, as a subscription's source; while it lasts,
 * the conversation stays followed (watchConversation, renewed). A reply begun before it
 * started comes without its pieces, whole, as its stored message.
 */
export function conversationPieces(bus: EventBus, em: EntityManager, accountId: number, uuid: string, logger?: Logger): AsyncIterableIterator<ConversationPiece> {
  return subscriberStream<ConversationPiece>(
    (push) => {
      const unlisten = bus.listenConversations(accountId, (piece) => {
        if (piece.u === uuid) push(piece);
      });
      const renew = setInterval(() => {
        watchConversation(em, accountId, uuid).catch((error: Error) => logger?.warn('conversations: a subscriber’s watch was not renewed', { message: error.message }));
      }, WATCH_RENEW_MS);
      renew.unref();
      return () => {
        clearInterval(renew);
        unlisten();
      };
    },
    () => logger?.warn('conversations: a subscriber fell too far behind; its stream is ended', { account_id: accountId }),
  );
}
