import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { GraphQLSchema, ValidationRule } from 'graphql';
import { serveSubscriptions, type Subscriptions } from '../graphql/subscriptions';
import type { Runtime } from '../runtime';
import { MEDIA_PATH } from '../telephony/twilio.wire';
import { serveWebCalls } from '../voice/transports/browser.server';
import { serveMedia } from '../voice/transports/twilio-media';
import { requestTarget } from './request';

export interface Sockets {
  subscriptions: Subscriptions;
  /** The server's 'upgrade' listener: a WebSocket goes to its server, any other upgrade gets a 404. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Tells every WebSocket to go, within about `graceMs`. */
  close(graceMs: number): Promise<void>;
}

/** The WebSockets: GraphQL subscriptions, the media streams of calls (Twilio, provider twilio only), and web calls. */
export async function serveSockets(schema: GraphQLSchema, runtime: Runtime, validationRules: ValidationRule[]): Promise<Sockets> {
  const subscriptions = await serveSubscriptions(schema, runtime, validationRules);
  const media = serveMedia(runtime);
  const webCalls = serveWebCalls(runtime);
  return {
    subscriptions,
    upgrade(req, socket, head) {
      const path = requestTarget(req.url)?.pathname ?? '';
      if (path === '/graphql') return subscriptions.upgrade(req, socket, head);
      if (path === MEDIA_PATH && runtime.telephony.name === 'twilio') return media.upgrade(req, socket, head);
      if (webCalls.handles(path)) return webCalls.upgrade(req, socket, head);
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    },
    close: async (graceMs) => {
      await Promise.all([subscriptions.close(graceMs), media.close(graceMs), webCalls.close(graceMs)]);
    },
  };
}
