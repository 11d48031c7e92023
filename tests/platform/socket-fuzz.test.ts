import fc from 'fast-check';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { mediaToken } from '../../src/telephony/twilio.wire';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';
import { startServer, type ServerProcess } from '../helpers/server';

/**
 * Every socket of the server takes any frame a stranger sends (any JSON value, text that is not
 * JSON, deep nesting, frames near the size limit, binary where text is expected and text where
 * binary is) as input it may refuse, never as a crash: the compiled server runs as its own
 * process (TELEPHONY_PROVIDER=twilio, so that the Twilio media socket is served), and after
 * each socket's fuzz it is still alive and a new web call and a new subscription still work.
 */
let app: TestApp;
let me: TestAccount;
let assistantId: number;
let server: ServerProcess;

beforeAll(async () => {
  app = await startTestApp();
  me = await app.account({ balance: '50' });
  assistantId = await app.outboundAssistant(me, { record_call: false });
  server = await startServer(app, {
    TELEPHONY_PROVIDER: 'twilio',
    TWILIO_ACCOUNT_SID: 'AC00000000000000000000000000000000',
    TWILIO_AUTH_TOKEN: 'fuzz-auth-token',
    TWILIO_API_BASE: 'http://127.0.0.1:9',
    RATE_LIMIT_PER_MINUTE: '0',
    PLAN_MAX_PARALLEL_CALLS: '100',
    // Vendors that are configured (a web call to an assistant without them is refused before
    // its socket exists) but unreachable: nothing here leaves the machine.
    DEEPGRAM_API_KEY: 'dg-fuzz-key',
    DEEPGRAM_URL: 'ws://127.0.0.1:9/v1/listen',
    OPENAI_API_KEY: 'sk-fuzz-key',
    OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
    OPENAI_REALTIME_URL: 'ws://127.0.0.1:9/v1/realtime',
  });
}, 90_000);
afterAll(async () => {
  if (server && server.child.exitCode === null) {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  await app?.close();
});

type Frame = { text: string } | { binary: Buffer } | { invalidUtf8: true };

const deep = '['.repeat(30_000) + ']'.repeat(30_000);
/** Near the media and web call sockets' 64 KiB limit. */
const huge = JSON.stringify({ event: 'media', type: 'mark', media: { payload: 'A'.repeat(60_000) }, name: 'B'.repeat(1000) });

/** Frames a stranger may send: JSON of any shape, near-misses of each protocol, and what is not JSON at all. */
const frames: fc.Arbitrary<Frame> = fc.oneof(
  fc.jsonValue().map((value) => ({ text: JSON.stringify(value) ?? 'null' })),
  fc
    .constantFrom(
      'null', '0', '-1e308', '1e999', 'true', '[]', '[null]', '""', '"start"', '{}', '{"event":null}', '{"event":5}', '{"type":null}', '{"type":[]}',
      '{"event":"media","media":null}', '{"event":"media","media":{"payload":5}}', '{"event":"media","media":{"payload":null}}',
      '{"event":"mark","mark":[1]}', '{"event":"mark","mark":{"name":{}}}', '{"event":"stop"}', '{"event":"connected"}',
      '{"event":"start","start":null}', '{"event":"start","start":{"customParameters":"x"}}', '{"event":"start","start":{"customParameters":null,"streamSid":7}}',
      '{"event":"start","start":{"streamSid":"MZ1","customParameters":{"call_id":{},"token":[]}}}',
      '{"type":"mark","name":{}}', '{"type":"mark","name":null}', '{"type":"hangup","name":1}', '{"type":"connection_init","payload":null}',
      '{"type":"connection_init","payload":[]}', '{"type":"subscribe","id":"__proto__","payload":{"query":"subscription { callUpdated { id } }"}}',
      '{"type":"subscribe","id":"1","payload":{"query":5}}', '{"type":"subscribe","id":"1","payload":{"query":"{","variables":[]}}',
      '{"type":"ping","payload":null}', '{"type":"pong","payload":"x"}', '{"type":"complete","id":{}}', '{"__proto__":{"event":"start"}}',
      deep, huge, '{', '\u0000', '{"event":"media"',
    )
    .map((text) => ({ text })),
  fc.string({ maxLength: 200 }).map((text) => ({ text })),
  fc.uint8Array({ maxLength: 4096 }).map((bytes) => ({ binary: Buffer.from(bytes) })),
  fc.constant({ invalidUtf8: true as const }),
);

function send(socket: WebSocket, frame: Frame): void {
  if (socket.readyState !== WebSocket.OPEN) return;
  if ('text' in frame) socket.send(frame.text);
  else if ('binary' in frame) socket.send(frame.binary, { binary: true });
  else socket.send(Buffer.from([0xff, 0xfe, 0xfd]), { binary: false });
}

/** Opens a socket, sends the frames, and waits until the server closes it or a short while passes. */
async function throwAt(url: string, sent: Frame[], options: { protocol?: string; first?: string[] } = {}): Promise<void> {
  const socket = new WebSocket(url, options.protocol);
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const opened = await new Promise<boolean>((resolve) => {
    socket.once('open', () => resolve(true));
    socket.once('close', () => resolve(false));
  });
  if (!opened) return;
  for (const text of options.first ?? []) socket.send(text);
  for (const frame of sent) send(socket, frame);
  await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 150))]);
  socket.terminate();
}

const wsBase = () => server.base.replace('http', 'ws');

async function startWebCall(): Promise<{ call_id: number; token: string }> {
  const res = await fetch(`${server.base}/api/user/calls/web`, {
    method: 'POST',
    headers: { authorization: `Bearer ${me.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ assistant_id: assistantId }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as any).data;
}

/** The server is alive and serves: HTTP, a new web call's socket, and a new subscription. */
async function stillServes(): Promise<void> {
  expect(server.child.exitCode).toBeNull();
  expect((await fetch(`${server.base}/readyz`)).status).toBe(200);

  const call = await startWebCall();
  const socket = new WebSocket(`${wsBase()}/calls/web/${call.call_id}?token=${call.token}`);
  const connected = await new Promise<any>((resolve, reject) => {
    socket.on('message', (data, binary) => {
      if (binary) return;
      const message = JSON.parse(data.toString());
      if (message.type === 'state') resolve(message);
    });
    socket.once('error', reject);
  });
  expect(connected).toEqual({ type: 'state', state: 'connected', call_id: call.call_id });
  socket.close();

  const client = createClient({ url: `${wsBase()}/graphql`, webSocketImpl: WebSocket, connectionParams: { Authorization: `Bearer ${me.token}` }, retryAttempts: 0 });
  try {
    const first = await new Promise<any>((resolve, reject) => {
      const stop = client.subscribe(
        { query: `subscription { callUpdated(id: ${call.call_id}, initial: true) { id type } }` },
        { next: (result) => (stop(), resolve(result)), error: reject, complete: () => {} },
      );
    });
    expect(first).toEqual({ data: { callUpdated: { id: call.call_id, type: 'web' } } });
  } finally {
    await client.dispose();
  }
}

const RUNS = 40;

it('the Twilio media socket refuses any frame before and after a start, and the process goes on', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(frames, { minLength: 1, maxLength: 4 }), fc.boolean(), async (sent, connectedFirst) => {
      const first = connectedFirst ? [JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' })] : [];
      await throwAt(`${wsBase()}/telephony/twilio/media`, sent, { first });
      expect(server.child.exitCode).toBeNull();
    }),
    { numRuns: RUNS },
  );
  await stillServes();
}, 120_000);

it('a web call’s socket refuses any control frame, with a token or without, and the process goes on', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(frames, { minLength: 1, maxLength: 4 }), fc.boolean(), async (sent, realCall) => {
      const call = realCall ? await startWebCall() : { call_id: 999_999, token: 'x' };
      await throwAt(`${wsBase()}/calls/web/${call.call_id}?token=${call.token}`, sent);
      expect(server.child.exitCode).toBeNull();
    }),
    { numRuns: RUNS },
  );
  await stillServes();
}, 120_000);

it('the subscriptions socket refuses any frame, before and after connection_init, and the process goes on', async () => {
  const init = JSON.stringify({ type: 'connection_init', payload: { Authorization: `Bearer ${me.token}` } });
  await fc.assert(
    fc.asyncProperty(fc.array(frames, { minLength: 1, maxLength: 4 }), fc.boolean(), async (sent, initFirst) => {
      await throwAt(`${wsBase()}/graphql`, sent, { protocol: 'graphql-transport-ws', first: initFirst ? [init] : [] });
      expect(server.child.exitCode).toBeNull();
    }),
    { numRuns: RUNS },
  );
  await stillServes();
}, 120_000);

it('the engine API answers any body with a documented error, never a crash or a 500', async () => {
  const call = await startWebCall();
  const token = mediaToken(app.runtime.secrets, call.call_id);
  await fc.assert(
    fc.asyncProperty(frames, fc.constantFrom('events', 'tools/lookup'), async (frame, route) => {
      const body = 'text' in frame ? frame.text : 'binary' in frame ? frame.binary : Buffer.from([0xff, 0xfe]);
      const res = await fetch(`${server.base}/engine/calls/${call.call_id}/${route}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body,
      });
      expect([204, 400, 404, 409, 413, 422, 429]).toContain(res.status);
      if (res.status !== 204) expect(Object.keys((await res.json()) as object)).toEqual(expect.arrayContaining(['message', 'code']));
    }),
    { numRuns: RUNS },
  );
  await stillServes();
}, 120_000);
