import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { closeWebSockets, within } from '../../lib/bounded';
import { WEB_CALL_PATH } from '../../modules/calls/call.web';
import { EventBus } from '../../modules/events/event.bus';
import { MAX_FRAME_BYTES, WebCallSession, type WebCallDeps } from './browser';

/** The process's server of web calls' sockets (browser.ts is one call's): upgrades, and every call's end at a stop. */
export interface WebCallServer {
  /** Whether this server takes an upgrade to `path`. */
  handles(path: string): boolean;
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Web calls connected to this process. */
  readonly calls: number;
  /** Ends every web call here; resolves within about `graceMs`, whatever the sockets and the database do. */
  close(graceMs?: number): Promise<void>;
}

export function serveWebCalls(runtime: WebCallDeps): WebCallServer {
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: MAX_FRAME_BYTES });
  const sessions = new Set<WebCallSession>();
  // Tells this process when a call ends, whoever ended it (the API on another process, the
  // sweeper): started with the first web call.
  let bus: Promise<EventBus> | null = null;
  const events = () =>
    (bus ??= (async () => {
      const started = new EventBus(String(runtime.orm.config.get('clientUrl')), runtime.logger);
      await started.start();
      return started;
    })().catch((error: unknown) => {
      bus = null;
      throw error;
    }));

  wss.on('connection', (socket: WebSocket, req: IncomingMessage) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const callId = Number(WEB_CALL_PATH.exec(url.pathname)?.[1]);
    const session = new WebCallSession(runtime, socket, events);
    sessions.add(session);
    // Kept until its call is settled, which a shutdown waits for.
    socket.once('close', () => void session.work.finally(() => sessions.delete(session)));
    session.start(callId, url.searchParams.get('token') ?? '');
  });
  return {
    handles: (path) => WEB_CALL_PATH.test(path),
    upgrade(req, socket, head) {
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
    },
    get calls() {
      return sessions.size;
    },
    async close(graceMs = 10_000) {
      const started = Date.now();
      const left = () => Math.max(0, graceMs - (Date.now() - started));
      const settled = Promise.all(
        [...sessions].map((session) => session.abandon().catch((error: unknown) => runtime.logger.error('voice: a web call did not end cleanly', error))),
      );
      // Calls not settled by then are left to the sweeper of another process (or the next start).
      if (!(await within(settled, graceMs))) runtime.logger.warn('voice: web calls still ending when the stop ran out of time', { calls: sessions.size });
      await closeWebSockets(wss, left());
      if (bus) await within((async () => (await bus.catch(() => null))?.stop())(), Math.max(1000, left()));
    },
  };
}
