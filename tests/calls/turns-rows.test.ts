import { MikroORM } from '@mikro-orm/postgresql';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { ormConfig } from '../../src/db/orm';
import { applyCallEvent } from '../../src/modules/calls/call.lifecycle';
import { appendTurn, turnsOfCall, type TurnLimits } from '../../src/modules/calls/call.turns';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';
import { setTurns, TURNS_COLUMN } from '../helpers/turns';

/**
 * A call's turns as rows (issue 50, item 7): appended one row each, in order, within the
 * engine API's caps however many appends race; a page of calls reads them in one statement;
 * a turn that races the call's end still reaches its transcript; and the calls that held
 * their turns in `calls.turns` keep them, in order, after the migration.
 */
let app: TestApp;
let me: TestAccount;

beforeAll(async () => {
  app = await startTestApp();
  me = await app.account({ balance: '100' });
});
afterAll(async () => {
  await app?.close();
});

/** Calls of the account written straight to the table, in progress (answered a minute ago) unless `finished`. */
async function insertCalls(count: number, finished = false): Promise<number[]> {
  const rows = await app.sql(
    `insert into calls (account_id, assistant_name, type, status, assistant_phone_number, client_phone_number, provider, deadline_at, answered_at, finished_at)
     select $1, 'Ana', 'outbound', $3::text, '+5511955000000', '+5511988' || lpad(g::text, 6, '0'), 'simulator', now() + interval '1 hour', now() - interval '1 minute',
            case when $3::text = 'completed' then now() end
       from generate_series(1, $2) g
     returning id`,
    [me.accountId, count, finished ? 'completed' : 'in-progress'],
  );
  return rows.map((row: any) => row.id);
}

const turnsOf = async (id: number) => (await app.sql(`select ${TURNS_COLUMN}, transcript from calls where id = $1`, [id]))[0];
const limits = (maxTurns: number, maxChars: number): TurnLimits => ({ maxTurns, maxChars, finishedSince: new Date(Date.now() - 60_000) });

describe('appending turns', () => {
  it('keeps the order, each turn its own row with its time from the answer', async () => {
    const [id] = await insertCalls(1);
    for (let i = 0; i < 5; i++) expect(await appendTurn(app.orm.em.fork(), id, { speaker: i % 2 ? 'assistant' : 'customer', text: `Turno ${i}` }, Date.now())).toBe(true);
    const rows = await app.sql('select seq, text, at_ms from call_turns where call_id = $1 order by seq', [id]);
    expect(rows.map((row: any) => row.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(rows.map((row: any) => row.text)).toEqual(['Turno 0', 'Turno 1', 'Turno 2', 'Turno 3', 'Turno 4']);
    // Answered a minute ago: each turn began about 60 s into the call.
    for (const row of rows) expect(row.at_ms).toBeGreaterThanOrEqual(59_000);
    // The transcript is written at the end, not as the call goes.
    expect((await turnsOf(id)).transcript).toBe('');
  });

  it.each([
    ['its first turns (the count made as they race)', 0],
    ['turns after its first (the count there)', 1],
  ])('lets concurrent appends take exactly the turns the cap leaves, with no sequence taken twice: %s', async (_, before) => {
    const [id] = await insertCalls(1);
    for (let i = 0; i < before; i++) await appendTurn(app.orm.em.fork(), id, { speaker: 'assistant', text: 'Olá!' }, null);
    const written = await Promise.all(Array.from({ length: 24 }, (_, i) => appendTurn(app.orm.em.fork(), id, { speaker: 'customer', text: `Concorrente ${i}` }, null, limits(7, 100_000))));
    expect(written.filter(Boolean)).toHaveLength(7 - before);
    const rows = await app.sql('select seq from call_turns where call_id = $1 order by seq', [id]);
    expect(rows.map((row: any) => row.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect((await app.sql('select turns from call_turn_counts where call_id = $1', [id]))[0].turns).toBe(7);
  });

  it('lets concurrent appends take no more characters than the cap, counted in code points', async () => {
    const [id] = await insertCalls(1);
    await appendTurn(app.orm.em.fork(), id, { speaker: 'assistant', text: 'Olá!' }, null);
    // Twenty turns of ten characters ("ã" is one) where fifty fit beside the first four: four are written.
    const written = await Promise.all(Array.from({ length: 20 }, () => appendTurn(app.orm.em.fork(), id, { speaker: 'customer', text: 'não, obri.' }, null, limits(1000, 54))));
    expect(written.filter(Boolean)).toHaveLength(5);
    const { turns } = await turnsOf(id);
    expect(turns.reduce((sum: number, turn: any) => sum + [...turn.text].length, 0)).toBe(54);
  });

  it('puts a turn that races the call’s end into its transcript', async () => {
    const [id] = await insertCalls(1);
    await appendTurn(app.orm.em.fork(), id, { speaker: 'customer', text: 'Antes do fim.' }, null);
    let late: Promise<boolean> | null = null;
    await app.orm.em.fork().transactional(async (tx) => {
      await applyCallEvent(tx, app.runtime.lifecycle, id, { type: 'ended', status: 'completed', duration: 60, turns: [{ speaker: 'system', text: 'Nota.' }] });
      // Begun before the end commits: its statement sees the call in progress.
      late = appendTurn(app.orm.em.fork(), id, { speaker: 'assistant', text: 'Depois do fim.' }, null);
      await new Promise((resolve) => setTimeout(resolve, 300));
    });
    expect(await late).toBe(true);
    const row = await turnsOf(id);
    expect(row.turns.map((turn: any) => turn.text)).toEqual(['Antes do fim.', 'Nota.', 'Depois do fim.']);
    expect(row.transcript).toBe('Cliente: Antes do fim.\nSistema: Nota.\nAssistente: Depois do fim.');
  });
});

describe('the log an append writes', () => {
  /** The log records of `act` on `table`'s heap, by type (pg_walinspect reads the log up to where it is flushed: the checkpoint). */
  async function recordsOn(table: string, act: () => Promise<unknown>): Promise<string[]> {
    await app.sql('create extension if not exists pg_walinspect');
    const [{ lsn }] = await app.sql('select pg_current_wal_insert_lsn()::text as lsn');
    await act();
    await app.sql('checkpoint');
    const rows = await app.sql(
      `select b.record_type from pg_get_wal_block_info($1::pg_lsn, pg_current_wal_insert_lsn()) b
        where b.reldatabase = (select oid from pg_database where datname = current_database()) and b.relfilenode = pg_relation_filenode($2::regclass)`,
      [lsn, table],
    );
    return rows.map((row: any) => row.record_type);
  }

  it('updates the count in place and locks nothing more: no row lock logged a turn', async () => {
    const [id] = await insertCalls(1);
    await appendTurn(app.orm.em.fork(), id, { speaker: 'customer', text: 'Primeiro.' }, null);
    const counts = await recordsOn('call_turn_counts', async () => {
      for (let i = 0; i < 3; i++) await appendTurn(app.orm.em.fork(), id, { speaker: 'assistant', text: `Resposta ${i}.` }, null);
    });
    // The turn's own insert, when its key checked the count, locked the count's new version (a LOCK each).
    expect(counts.filter((type) => type !== 'PRUNE_ON_ACCESS')).toEqual(['HOT_UPDATE', 'HOT_UPDATE', 'HOT_UPDATE']);
    expect((await turnsOf(id)).turns.map((turn: any) => turn.text)).toEqual(['Primeiro.', 'Resposta 0.', 'Resposta 1.', 'Resposta 2.']);
  });

  it('deletes a call’s turns with the call (and with its count), and no other call’s', async () => {
    const [gone, kept] = await insertCalls(2, true);
    for (const id of [gone, kept]) await appendTurn(app.orm.em.fork(), id, { speaker: 'customer', text: 'Oi.' }, null);
    await app.sql('delete from calls where id = $1', [gone]);
    expect(await app.sql('select call_id from call_turns where call_id = any($1::int[])', [[gone, kept]])).toEqual([{ call_id: kept }]);
    await app.sql('delete from call_turn_counts where call_id = $1', [kept]);
    expect(await app.sql('select call_id from call_turns where call_id = $1', [kept])).toEqual([]);
  });

  it('leaves the counts out of autovacuum’s analyses (read only by their key, rewritten at every turn)', async () => {
    const [{ options }] = await app.sql(`select reloptions as options from pg_class where oid = 'call_turn_counts'::regclass`);
    expect(options).toContain('autovacuum_analyze_threshold=2147483647');
  });
});

describe('reading turns', () => {
  it('reads the turns and latency of a whole page of calls in one statement', async () => {
    const quiet = await startTestApp();
    try {
      const account = await quiet.account();
      const rows = await quiet.sql(
        `insert into calls (account_id, assistant_name, type, status, assistant_phone_number, client_phone_number, provider, deadline_at)
         select $1, 'Ana', 'outbound', 'completed', '+5511955000000', '+5511988' || lpad(g::text, 6, '0'), 'simulator', now() from generate_series(1, 30) g returning id`,
        [account.accountId],
      );
      const latency = { stt_final_ms: 100, llm_first_token_ms: 200, tts_first_byte_ms: 300, first_audio_ms: 400 };
      for (const { id } of rows) await setTurns(quiet.sql, id, [{ speaker: 'customer', text: `Oi ${id}` }, { speaker: 'assistant', text: 'Olá!', latency }]);
      const page = (fields: string) => quiet.graphql(`{ callFeed(per_page: 30) { data { id ${fields} } } }`, {}, account.token);

      await page(''); // the token is then known: each request below reads it the same way
      quiet.resetQueries();
      await page('');
      const without = quiet.queries.length;

      quiet.resetQueries();
      const withTurns = await page('turns { speaker text } latency { turns p50_ms }');
      const data = withTurns.body.data.callFeed.data;
      expect(data).toHaveLength(30);
      for (const call of data) {
        expect(call.turns).toEqual([{ speaker: 'customer', text: `Oi ${call.id}` }, { speaker: 'assistant', text: 'Olá!' }]);
        expect(call.latency).toEqual({ turns: 1, p50_ms: 400 });
      }
      expect(quiet.queries.length).toBe(without + 1);
    } finally {
      await quiet.close();
    }
  });

  it('does not show another account’s turns', async () => {
    const other = await app.account();
    const [id] = await insertCalls(1);
    await setTurns(app.sql, id, [{ speaker: 'customer', text: 'Segredo.' }]);
    const mine = await app.graphql('query($id: Int!) { call(id: $id) { turns { text } } }', { id }, me.token);
    expect(mine.body.data.call.turns).toEqual([{ text: 'Segredo.' }]);
    const theirs = await app.graphql('query($id: Int!) { call(id: $id) { turns { text } } }', { id }, other.token);
    expect(theirs.body.data).toBeNull();
  });
});

describe('the migration of existing calls', () => {
  it('moves each call’s turns into rows in their order, with its count, and drops the column', async () => {
    const database = `vozgate_test_${randomBytes(6).toString('hex')}`;
    const admin = new Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`create database ${database}`);
    const url = new URL(process.env.TEST_DATABASE_URL!);
    url.pathname = `/${database}`;
    const orm = await MikroORM.init(ormConfig({ databaseUrl: url.toString() }));
    try {
      await orm.getMigrator().up({ to: 'Migration20261128100000_call_hangup_detail' });
      // An account of that schema's time, in SQL: today's entities (a token's name and last use) are newer than it.
      const [account] = await orm.em.fork().execute<{ id: number }[]>(`insert into accounts (name, balance) values ('Antiga', 10) returning id`);
      const turns = [
        { speaker: 'assistant', text: 'Olá, aqui é a Ana.', at_ms: 0 },
        { speaker: 'customer', text: 'Oi, pode falar.', at_ms: 2100 },
        { speaker: 'assistant', text: 'Ótimo!', at_ms: 4000, latency: { stt_final_ms: 1, llm_first_token_ms: 2, tts_first_byte_ms: 3, first_audio_ms: 4 } },
      ];
      const insert = (status: string, json: unknown[], finished: boolean) =>
        orm.em.fork().execute(
          `insert into calls (account_id, assistant_name, type, status, assistant_phone_number, client_phone_number, provider, deadline_at, turns, transcript, finished_at)
           values (?, 'Ana', 'outbound', ?, '+5511955000000', '+5511988000001', 'twilio', now(), ?::jsonb, ?, ${finished ? 'now()' : 'null'}) returning id`,
          [account.id, status, JSON.stringify(json), finished ? 'Assistente: Olá, aqui é a Ana.' : ''],
        );
      const [{ id: ended }] = await insert('completed', turns, true);
      const [{ id: live }] = await insert('in-progress', turns.slice(0, 2), false);
      const [{ id: silent }] = await insert('busy', [], true);

      await orm.getMigrator().up();
      const em = orm.em.fork();
      const rows = await em.execute('select call_id, seq, account_id from call_turns order by call_id, seq');
      expect(rows.filter((row: any) => row.call_id === ended).map((row: any) => row.seq)).toEqual([1, 2, 3]);
      expect(await turnsOfCall(em, ended)).toEqual(turns);
      expect(await turnsOfCall(em, live)).toEqual(turns.slice(0, 2));
      expect(rows.filter((row: any) => row.call_id === silent)).toEqual([]);
      expect(rows.every((row: any) => row.account_id === account.id)).toBe(true);
      const counts = await em.execute('select call_id, turns, chars, finished from call_turn_counts order by call_id');
      const chars = (list: { text: string }[]) => list.reduce((sum, turn) => sum + [...turn.text].length, 0);
      expect(counts).toEqual([
        { call_id: ended, turns: 3, chars: chars(turns), finished: true },
        { call_id: live, turns: 2, chars: chars(turns.slice(0, 2)), finished: false },
      ]);
      expect(await em.execute(`select 1 from information_schema.columns where table_name = 'calls' and column_name = 'turns'`)).toEqual([]);
      // The transcript written at the end stays as it was.
      expect((await em.execute('select transcript from calls where id = ?', [ended]))[0].transcript).toBe('Assistente: Olá, aqui é a Ana.');

      // The live call goes on where it was: its next turn is the third.
      expect(await appendTurn(orm.em.fork(), live, { speaker: 'assistant', text: 'Continuo.' }, null)).toBe(true);
      expect((await em.execute('select seq from call_turns where call_id = ? order by seq', [live])).map((row: any) => row.seq)).toEqual([1, 2, 3]);
    } finally {
      await orm.close();
      await admin.query(`drop database if exists ${database} with (force)`);
      await admin.end();
    }
  });
});
