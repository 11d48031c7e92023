import WebSocket from 'ws';
import { initOrm } from '../src/db/orm';
import { addPhoneNumber, createAccount } from '../src/modules/accounts/account.service';
import { emitEvents } from '../src/modules/events/event.outbox';
import { dropDatabase, freshDatabase, percentile, rssKb, startVozgate } from './process';

/**
 * Subscriptions fan-out: `subscribers` WebSocket connections, one `callUpdated` subscription
 * each, all of one account, on one API process (the compiled server, in a child process, on a
 * database of its own); the subscribers are light protocol clients in this process. Then `events` call status changes, each committed by this process the
 * way the lifecycle commits one (the event row and its NOTIFY in a transaction), a little
 * apart. Measured: from the moment COMMIT returns to the moment each subscriber has the event
 * (every subscriber, every event), and the server's resident memory per open subscription.
 */
export interface SubscriptionsResult {
  subscribers: number;
  events: number;
  deliveries: number;
  latency_p50_ms: number;
  latency_p99_ms: number;
  latency_max_ms: number;
  kb_per_subscription: number;
}

const EVENT_GAP_MS = 100;

/**
 * One subscriber, speaking the graphql-ws protocol (graphql-transport-ws) by hand with as
 * little work per message as can be, so that the measure is the server's: it notes when each
 * event's message arrives, by the call id it carries.
 */
function subscriber(port: number, token: string, received: Map<number, number[]>, log: (line: string) => void): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/graphql`, 'graphql-transport-ws');
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: { Authorization: `Bearer ${token}` } })));
    socket.on('message', (raw: Buffer) => {
      const at = performance.timeOrigin + performance.now();
      const text = raw.toString();
      const event = CALL_ID.exec(text);
      if (event) {
        const id = Number(event[1]);
        (received.get(id) ?? received.set(id, []).get(id)!).push(at);
      } else if (text.includes('"connection_ack"')) {
        socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: 'subscription { callUpdated { id status } }' } }));
        resolve(socket);
      } else if (text.includes('"ping"')) {
        socket.send('{"type":"pong"}');
      } else {
        log(`subscriptions: unexpected message ${text.slice(0, 200)}`);
      }
    });
    socket.on('error', reject);
  });
}

const CALL_ID = /"callUpdated":\{"id":(-?\d+)/;


export async function runSubscriptionsScenario(
  adminUrl: string,
  root: string,
  subscribers: number,
  events: number,
  log: (line: string) => void,
  node = process.execPath,
): Promise<SubscriptionsResult> {
  const database = 'vozgate_bench_subscriptions';
  const databaseUrl = await freshDatabase(adminUrl, database);

  const orm = await initOrm({ databaseUrl });
  const { account, token } = await createAccount(orm.em.fork(), { name: 'Fan-out', balance: '100' });
  await addPhoneNumber(orm.em.fork(), { accountId: account.id, number: '+5511955000002', smsEnabled: false, expiresAt: null });
  const server = await startVozgate(root, databaseUrl, {}, [], node);
  const sockets: WebSocket[] = [];
  try {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const before = rssKb(server.child.pid!);
    const received = new Map<number, number[]>();
    log(`subscriptions: opening ${subscribers}`);
    for (let i = 0; i < subscribers; i++) sockets.push(await subscriber(server.port, token, received, log));
    // Every subscription is registered once a probe event reaches them all.
    const probe = async (id: number) => {
      await orm.em.fork().transactional((tx) => emitEvents(tx, [{ accountId: account.id, type: 'call.ringing', data: { id, status: 'ringing' } }]));
    };
    for (let attempt = 0; (received.get(-1)?.length ?? 0) < subscribers; attempt++) {
      if (attempt > 200) throw new Error(`only ${received.get(-1)?.length ?? 0} of ${subscribers} subscriptions answered`);
      received.delete(-1);
      await probe(-1);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const after = rssKb(server.child.pid!);

    log(`subscriptions: ${events} events to ${subscribers} subscribers`);
    const committed = new Map<number, number>();
    for (let id = 1; id <= events; id++) {
      const em = orm.em.fork();
      await em.transactional((tx) => emitEvents(tx, [{ accountId: account.id, type: 'call.ringing', data: { id, status: 'ringing' } }]));
      committed.set(id, performance.timeOrigin + performance.now());
      await new Promise((resolve) => setTimeout(resolve, EVENT_GAP_MS));
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const latencies: number[] = [];
    for (const [id, at] of committed) for (const when of received.get(id) ?? []) latencies.push(when - at);
    latencies.sort((a, b) => a - b);
    const missing = events * subscribers - latencies.length;
    if (missing) log(`subscriptions: ${missing} deliveries missing`);
    return {
      subscribers,
      events,
      deliveries: latencies.length,
      latency_p50_ms: Math.round(percentile(latencies, 50) * 10) / 10,
      latency_p99_ms: Math.round(percentile(latencies, 99) * 10) / 10,
      latency_max_ms: Math.round((latencies.at(-1) ?? 0) * 10) / 10,
      kb_per_subscription: Math.round(((after - before) / subscribers) * 10) / 10,
    };
  } finally {
    for (const socket of sockets) socket.terminate();
    server.child.kill('SIGTERM');
    await new Promise((resolve) => (server.child.exitCode !== null ? resolve(null) : server.child.once('exit', resolve)));
    await orm.close();
    await dropDatabase(adminUrl, database);
  }
}
