import http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Pool } from 'pg';
import { askModel } from './floor-model';

/**
 * The floor of the chat benchmark (bench/chat.ts): the least a server can do for the same
 * replies, a plain node:http + pg process with no GraphQL, no ORM, no rules. It makes a reply's
 * round trips as vozgate does (the token's lookup; the conversation read with its last messages
 * and its row's version; one statement that stores the message and takes the lease while the
 * row is still that version; the model's streamed answer through node:http; one statement that
 * stores the reply and gives the lease back), on the same
 * database cluster, against the same fake model. Its "added" latency is what the harness, the
 * fake's timers, the loopback sockets, PostgreSQL and this machine cost a reply: vozgate's own
 * cost is its added latency over this one.
 */
const { DATABASE_URL, FLOOR_TOKEN } = process.env;
const pool = new Pool({ connectionString: DATABASE_URL, max: 10 });
const HISTORY = 20;

async function setUp(): Promise<void> {
  await pool.query(`
    create table if not exists floor_tokens (token text primary key, account int not null);
    create table if not exists floor_conversations (id serial primary key, uuid uuid unique not null, account int not null, lease text, updated_at timestamptz not null default now());
    create table if not exists floor_messages (id bigserial primary key, conversation_id int not null references floor_conversations, role text not null, content text not null, created_at timestamptz not null default clock_timestamp());
    create index if not exists floor_messages_conversation on floor_messages (conversation_id, id);
    insert into floor_tokens values ('${FLOOR_TOKEN}', 1) on conflict do nothing;
  `);
}

async function account(req: http.IncomingMessage): Promise<number | null> {
  const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
  const { rows } = await pool.query({ name: 'token', text: 'select account from floor_tokens where token = $1', values: [token] });
  return rows[0]?.account ?? null;
}

async function reply(uuid: string, message: string, owner: number): Promise<Record<string, unknown> | null> {
  const lease = randomUUID();
  let turn: { id: number; version: string; history: { role: string; content: string }[] } | undefined;
  for (;;) {
    const { rows } = await pool.query({
      name: 'read',
      text: `select c.id, c.xmin::text as version, coalesce((select json_agg(json_build_object('role', m.role, 'content', m.content) order by m.id)
                from (select * from floor_messages where conversation_id = c.id order by id desc limit ${HISTORY}) m), '[]') as history
             from floor_conversations c where c.uuid = $1 and c.account = $2`,
      values: [uuid, owner],
    });
    turn = rows[0];
    if (!turn) return null;
    const stored = await pool.query({
      name: 'store',
      text: `with c as (update floor_conversations set updated_at = clock_timestamp(), lease = $3 where id = $1 and xmin = $4::text::xid returning id)
             insert into floor_messages (conversation_id, role, content) select c.id, 'user', $2 from c`,
      values: [turn.id, message, lease, turn.version],
    });
    if (stored.rowCount === 1) break;
  }
  const text = await complete([{ role: 'system', content: 'Você confirma pedidos da Loja Centro. Seja breve.' }, ...turn.history, { role: 'user', content: message }]);
  const { rows } = await pool.query({
    name: 'end',
    text: `with r as (insert into floor_messages (conversation_id, role, content) values ($1, 'assistant', $2) returning id, created_at)
           update floor_conversations set lease = null, updated_at = clock_timestamp() where id = $1 and lease = $3
           returning (select json_build_object('id', r.id, 'created_at', r.created_at) from r) as reply`,
    values: [turn.id, text, lease],
  });
  return { message: { role: 'user', content: message }, reply: { ...rows[0]?.reply, role: 'assistant', content: text } };
}

/** The model's answer, streamed and joined. */
function complete(messages: { role: string; content: string }[]): Promise<string> {
  return askModel({ model: 'gpt-4o-mini', temperature: 0.7, messages, stream: true, stream_options: { include_usage: true } });
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const server = http.createServer((req, res) => {
  let raw = '';
  req.setEncoding('utf8');
  req.on('data', (piece: string) => (raw += piece));
  req.on('end', () => {
    void (async () => {
      const owner = await account(req);
      if (owner === null) return send(res, 401, { message: 'Unauthenticated.' });
      if (req.method === 'POST' && req.url === '/api/conversations') {
        const { rows } = await pool.query({ name: 'open', text: 'insert into floor_conversations (uuid, account) values ($1, $2) returning uuid', values: [randomUUID(), owner] });
        return send(res, 201, { data: { uuid: rows[0].uuid } });
      }
      const uuid = /^\/api\/conversations\/([0-9a-f-]{36})\/messages$/.exec(req.url ?? '')?.[1];
      if (req.method !== 'POST' || !uuid) return send(res, 404, { message: 'Not found.' });
      const data = await reply(uuid, String(JSON.parse(raw).message ?? ''), owner);
      return data ? send(res, 200, { data }) : send(res, 404, { message: 'Not found.' });
    })().catch((error: unknown) => send(res, 500, { message: String(error) }));
  });
});

void setUp().then(() =>
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`floor: REST http://127.0.0.1:${(server.address() as AddressInfo).port}/api\n`);
  }),
);
process.on('SIGTERM', () => {
  server.close();
  void pool.end();
  process.exit(0);
});
