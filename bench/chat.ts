import path from 'node:path';
import { initOrm } from '../src/db/orm';
import { createAccount } from '../src/modules/accounts/account.service';
import { startFakeOpenAi } from '../tests/helpers/fakes/openai';
import { apiClient, benchAssistant, cpuMs, dropDatabase, freshDatabase, percentile, start, startVozgate, stop } from './process';

/**
 * Conversations over text (issue 55): `conversations` at once, each sending `messages` messages
 * one after the other through `POST /api/conversations/{uuid}/messages` (the assistant's reply
 * in the answer), to one API process on a database of its own. A customer reads each reply and
 * types the next message: THINK_MS on average (half to one and a half of it, at random), and
 * the conversations begin at random within the first THINK_MS, as customers who write at
 * their own moments do. The model is the tests' fake
 * OpenAI, streaming a fixed answer word by word (its first token LLM_FIRST_TOKEN_MS after the
 * request, a word every LLM_TOKEN_MS after it). A reply's added latency is the client's time
 * for the request less the time the fake spent on that reply's model request (from the
 * request's arrival to its last byte, as the fake saw it): what vozgate adds around the model
 * (HTTP, the token, the conversation's statements and its stream), at that concurrency.
 * CPU per reply is the server process's CPU time over the measured replies. Each round opens
 * its own conversations; a round of one message each warms the process up first.
 *
 * The same rounds then run against the floor (bench/chat-floor.ts): a plain node:http + pg
 * process making a reply's round trips as vozgate does, on the same cluster and fake model.
 * Its added latency is the harness's and the machine's; vozgate's own is what it adds over it.
 */
export interface ChatRound {
  replies: number;
  errors: number;
  seconds: number;
  added_p50_ms: number;
  added_p95_ms: number;
  added_p99_ms: number;
  added_max_ms: number;
  /** The fake model's own time for a reply (its request to its last byte), p50. */
  model_p50_ms: number;
  cpu_ms_per_reply: number;
  /** The server's share of one core over the round. */
  server_cpu_pct: number;
}

export interface ChatResult {
  conversations: number;
  messages: number;
  llm_first_token_ms: number;
  llm_token_ms: number;
  think_ms: number;
  rounds: ChatRound[];
  /** The same rounds against the floor (bench/chat-floor.ts). */
  floor: ChatRound[];
}

const LLM_FIRST_TOKEN_MS = 300;
/** A customer's time to read a reply and type the next message, on average. */
const THINK_MS = 5000;
const LLM_TOKEN_MS = 10;
const ANSWER = 'Claro! Seu pedido 4521 foi confirmado e chega amanhã entre 9h e 12h. Posso ajudar em algo mais?';

export async function runChatScenario(
  adminUrl: string,
  root: string,
  options: { conversations: number; messages: number; rounds: number },
  log: (line: string) => void,
  node = process.execPath,
): Promise<ChatResult> {
  const database = 'vozgate_bench_chat';
  const databaseUrl = await freshDatabase(adminUrl, database);
  const orm = await initOrm({ databaseUrl });
  const { token } = await createAccount(orm.em.fork(), { name: 'Chat bench', balance: '1000' });
  const [{ id: voice }] = await orm.em.fork().execute(`select id from voices where mode = 'pipeline' order by id limit 1`);
  await orm.close();
  const openai = await startFakeOpenAi('sk-bench-chat');
  /** The fake's time for each reply, by the marker that begins the customer's message it answers. */
  const modelMs = new Map<string, number>();
  openai.defaultChat = (body) => {
    const arrived = performance.now();
    const asked = [...body.messages].reverse().find((message: { role: string }) => message.role === 'user')?.content as string;
    const marker = /^\[(\S+)\]/.exec(asked ?? '')?.[1];
    // The fake keeps the request (with this body) once this answer is chosen: among the last it kept.
    if (marker)
      queueMicrotask(() => {
        const requests = openai.chatRequests;
        let i = requests.length - 1;
        while (i >= 0 && requests[i].body !== body) i--;
        void requests[i]?.outcome.then(() => modelMs.set(marker, performance.now() - arrived));
      });
    return { text: ANSWER, firstTokenMs: LLM_FIRST_TOKEN_MS, tokenMs: LLM_TOKEN_MS };
  };
  /**
   * Warm-up, then `options.rounds` rounds against the server on `port` (its process `pid`), as
   * `token`'s customers; `assistant`: the conversations' (none on the floor).
   */
  const measure = async (name: string, port: number, pid: number, token: string, assistant: number | null): Promise<ChatRound[]> => {
    const call = apiClient(port, token);
    const post = (path: string, body: unknown) => call('POST', path, body) as Promise<{ data: Record<string, any> }>;
    const open = () => Promise.all(Array.from({ length: options.conversations }, () => post('/conversations', { assistant_id: assistant }).then(({ data }) => data.uuid as string)));
    const say = (uuid: string, marker: string) => post(`/conversations/${uuid}/messages`, { message: `[${marker}] Oi, queria confirmar o meu pedido.` });

    // Warm-up: every conversation of a round's size once.
    const warm = await open();
    await Promise.all(warm.map((uuid, c) => say(uuid, `${name}w${c}`)));

    const rounds: ChatRound[] = [];
    for (let round = 1; round <= options.rounds; round++) {
      const uuids = await open();
      modelMs.clear();
      // The fake keeps every request it answered: a round's are enough (and no request is in flight now).
      openai.chatRequests.length = 0;
      const took = new Map<string, number>();
      let errors = 0;
      const cpuBefore = cpuMs(pid);
      const started = performance.now();
      const think = (scale: number) => new Promise((resolve) => setTimeout(resolve, THINK_MS * scale));
      await Promise.all(
        uuids.map(async (uuid, c) => {
          await think(Math.random());
          for (let m = 0; m < options.messages; m++) {
            if (m > 0) await think(0.5 + Math.random());
            const marker = `${name}r${round}c${c}m${m}`;
            const sent = performance.now();
            try {
              await say(uuid, marker);
              took.set(marker, performance.now() - sent);
            } catch (error) {
              errors++;
              if (errors <= 3) log(`chat: ${(error as Error).message}`);
            }
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      const cpu = cpuMs(pid) - cpuBefore;
      // The fake's timers settle a moment after the answers went out.
      await new Promise((resolve) => setTimeout(resolve, 50));
      const added: number[] = [];
      const model: number[] = [];
      for (const [marker, ms] of took) {
        const own = modelMs.get(marker);
        if (own === undefined) continue;
        added.push(ms - own);
        model.push(own);
      }
      added.sort((a, b) => a - b);
      model.sort((a, b) => a - b);
      const round1 = (n: number) => Math.round(n * 10) / 10;
      const row: ChatRound = {
        replies: added.length,
        errors,
        seconds: round1(seconds),
        added_p50_ms: round1(percentile(added, 50)),
        added_p95_ms: round1(percentile(added, 95)),
        added_p99_ms: round1(percentile(added, 99)),
        added_max_ms: round1(added.at(-1) ?? 0),
        model_p50_ms: round1(percentile(model, 50)),
        cpu_ms_per_reply: round1(cpu / Math.max(1, added.length)),
        server_cpu_pct: round1((cpu / (seconds * 1000)) * 100),
      };
      log(`chat: ${name} round ${round}: ${JSON.stringify(row)}`);
      rounds.push(row);
    }
    return rounds;
  };

  try {
    // CHAT_NODE_FLAGS: node's flags for both servers, such as `--cpu-prof --cpu-prof-dir=/tmp/chat` or `--trace-gc`.
    const nodeFlags = process.env.CHAT_NODE_FLAGS?.split(/\s+/).filter(Boolean) ?? [];
    const server = await startVozgate(root, databaseUrl, { OPENAI_API_KEY: 'sk-bench-chat', OPENAI_BASE_URL: openai.url, LOG_LEVEL: 'warn' }, nodeFlags, node);
    let rounds: ChatRound[];
    try {
      const assistant = await benchAssistant(apiClient(server.port, token), 'Chat bench', voice, 'Olá!');
      rounds = await measure('vozgate', server.port, server.child.pid!, token, assistant);
    } finally {
      await stop(server.child);
    }
    const floorToken = 'floor-token';
    const floor = await start([...nodeFlags, path.join(root, 'dist/bench/chat-floor.js')], { DATABASE_URL: databaseUrl, OPENAI_API_KEY: 'sk-bench-chat', OPENAI_BASE_URL: openai.url, FLOOR_TOKEN: floorToken }, /REST\s+http:\/\/[^:]+:(\d+)\/api/, node);
    let floorRounds: ChatRound[];
    try {
      floorRounds = await measure('floor', floor.port, floor.child.pid!, floorToken, null);
    } finally {
      await stop(floor.child);
    }
    return { conversations: options.conversations, messages: options.messages, llm_first_token_ms: LLM_FIRST_TOKEN_MS, llm_token_ms: LLM_TOKEN_MS, think_ms: THINK_MS, rounds, floor: floorRounds };
  } finally {
    await openai.close();
    await dropDatabase(adminUrl, database);
  }
}

export function chatTable(r: ChatResult): string {
  const rows = (server: string, rounds: ChatRound[]) =>
    rounds.map(
      (row, i) =>
        `| ${server} | ${i + 1} | ${row.replies} | ${row.errors} | ${row.seconds} | ${row.added_p50_ms} | ${row.added_p95_ms} | ${row.added_p99_ms} | ${row.added_max_ms} | ${row.model_p50_ms} | ${row.cpu_ms_per_reply} | ${row.server_cpu_pct} |`,
    );
  return [
    `${r.conversations} conversations at once, ${r.messages} messages each in turn, ${r.think_ms / 1000} s on average between a reply and the next message (a customer reading and typing); the fake model's first token ${r.llm_first_token_ms} ms after the request, a word every ${r.llm_token_ms} ms. Added: the client's time less the model's own, per reply. Target: added p99 <= 20 ms. The floor: the same rounds against a plain node:http + pg server making the same round trips (bench/chat-floor.ts).`,
    '',
    '| server | round | replies | errors | s | added p50 ms | p95 | p99 | max | model p50 ms | CPU ms per reply | server CPU (% of a core) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows('vozgate', r.rounds),
    ...rows('floor', r.floor ?? []),
  ].join('\n');
}
