import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { Arrivals } from './fakes/arrivals';

/**
 * A local stand-in for the OpenAI Realtime API's WebSocket: it refuses a connection without
 * the expected bearer key (401, as the API does), answers `session.update` with
 * `session.updated`, and lets the test read what the client sent and script what the model
 * says, in the API's event shapes (GA).
 */
export interface RealtimeSession {
  url: string;
  headers: IncomingHttpHeaders;
  /** Every client event received, parsed. */
  events: Record<string, any>[];
  send(event: Record<string, unknown>): void;
  /** A text frame as it is: what no event of the API looks like. */
  raw(text: string): void;
  /**
   * The server VAD hears the caller's speech `item` stop: `speech_stopped`, then `committed`;
   * then, as the API documents `turn_detection.create_response` (default true), the server
   * creates a response by itself, unless one is under way (`interrupt_response` false: it
   * fails, an error event).
   */
  vadStop(item: string, audioEndMs: number): void;
  /** The responses the server created by itself at a VAD stop (create_response), by id. */
  autoResponses: string[];
  /** The next client event of this type (received after `from`, an index into `events`). */
  next(type: string, from?: number, timeoutMs?: number): Promise<Record<string, any>>;
  closed: Promise<void>;
  close(): void;
}

export interface FakeRealtime {
  url: string;
  /** While set, connections are refused with 401 (a revoked key, an outage). */
  refuse: boolean;
  sessions: RealtimeSession[];
  /** The next session to connect (or the one that already did, beyond those taken). */
  session(timeoutMs?: number): Promise<RealtimeSession>;
  close(): Promise<void>;
}

export async function startFakeRealtime(apiKey: string): Promise<FakeRealtime> {
  const fake = { refuse: false } as FakeRealtime;
  const wss = new WebSocketServer({
    port: 0,
    host: '127.0.0.1',
    verifyClient: (info, done) => (!fake.refuse && info.req.headers.authorization === `Bearer ${apiKey}` ? done(true) : done(false, 401, 'Unauthorized')),
  });
  await new Promise<void>((resolve) => wss.once('listening', resolve));
  const sessions = new Arrivals<RealtimeSession>('Realtime session');
  wss.on('connection', (socket: WebSocket, req) => {
    const waiters: { type: string; from: number; resolve: (event: Record<string, any>) => void }[] = [];
    let closedResolve: () => void;
    /** The session's turn detection as the client last set it, and the response under way (scripted by the test, or the server's own). */
    let turnDetection: Record<string, any> = {};
    let responding = false;
    const session: RealtimeSession = {
      url: req.url ?? '',
      headers: req.headers,
      events: [],
      send: (event) => {
        if (event.type === 'response.created') responding = true;
        if (event.type === 'response.done') responding = false;
        socket.send(JSON.stringify({ event_id: `event_${Math.random().toString(36).slice(2)}`, ...event }));
      },
      autoResponses: [],
      vadStop(item, audioEndMs) {
        session.send({ type: 'input_audio_buffer.speech_stopped', audio_end_ms: audioEndMs, item_id: item });
        session.send({ type: 'input_audio_buffer.committed', previous_item_id: null, item_id: item });
        if (turnDetection.create_response === false) return;
        if (responding && turnDetection.interrupt_response === false) {
          session.send({ type: 'error', error: { type: 'invalid_request_error', code: 'conversation_already_has_active_response', message: 'Conversation already has an active response in progress.' } });
          return;
        }
        const id = `resp_auto_${item}`;
        session.autoResponses.push(id);
        session.send({ type: 'response.created', response: { id, status: 'in_progress' } });
      },
      raw: (text) => socket.send(text),
      next(type, from = 0, timeoutMs = 10_000) {
        const found = session.events.slice(from).find((event) => event.type === type);
        if (found) return Promise.resolve(found);
        return new Promise((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`no ${type} from the client`)), timeoutMs);
          waiters.push({ type, from, resolve: (event) => (clearTimeout(timer), resolve(event)) });
        });
      },
      closed: new Promise<void>((resolve) => (closedResolve = resolve)),
      close: () => socket.close(),
    };
    socket.on('close', () => closedResolve());
    socket.on('message', (data) => {
      const event = JSON.parse(data.toString());
      session.events.push(event);
      if (event.type === 'session.update') turnDetection = event.session?.audio?.input?.turn_detection ?? turnDetection;
      if (event.type === 'session.update') session.send({ type: 'session.updated', session: { id: 'sess_fake', object: 'realtime.session', ...event.session } });
      for (const waiter of waiters.filter((w) => w.type === event.type && session.events.length - 1 >= w.from)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(event);
      }
    });
    sessions.add(session);
  });
  return Object.assign(fake, {
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`,
    sessions: sessions.all,
    session: (timeoutMs?: number) => sessions.next(timeoutMs),
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close(() => resolve());
      }),
  });
}
