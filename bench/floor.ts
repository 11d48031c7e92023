import { createHash } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { Pool, type PoolClient } from 'pg';
import { statementOf } from '../src/db/prepared';
import { specTimestampSql } from '../src/lib/time';
import { dayAfter } from '../src/modules/calls/call.count-ranges';
import { firstPage, pageStatement, seek, type CallFilter, type Run } from '../src/modules/calls/call.list';

/**
 * The floor: the least a server can do for each scenario, a plain node:http server running
 * the same SQL by hand over `pg` (token check included), with no framework, ORM or GraphQL.
 * Nothing is validated beyond what the SQL needs: it answers what vozgate answers, faster
 * than any real service could.
 */
const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_MAX ?? 10) });
const port = Number(process.env.PORT ?? 0);

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function accountOf(req: IncomingMessage): Promise<number | null> {
  const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
  if (!token) return null;
  const digest = createHash('sha256').update(token).digest('hex');
  const { rows } = await pool.query({ name: 'token', text: 'select account_id from api_tokens where token_hash = $1', values: [digest] });
  return rows[0]?.account_id ?? null;
}

async function body(req: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
}

const CALL_COLUMNS = `id, assistant_name, campaign_name, type, duration, assistant_phone_number, client_phone_number, status, transcript,
  variables, evaluation, webhook_response, carrier_cost::float8 as carrier_cost, total_cost::float8 as total_cost, answered_by, recording_url,
  lead_id, attempt, ${specTimestampSql('created_at')} as created_at, ${specTimestampSql('updated_at')} as updated_at`;

/** Runs vozgate's statements (`?` placeholders) on a pool or a client of it, prepared as vozgate prepares them. */
function runOn(db: Pool | PoolClient): Run {
  return async ({ sql, params }) => (await db.query({ ...statementOf(sql), values: params })).rows;
}

/** Runs `work` in a transaction (`begin <mode>`) on one client of the pool. */
async function transaction<T>(work: (client: PoolClient) => Promise<T>, mode = ''): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(`begin ${mode}`);
    const result = await work(client);
    await client.query('commit');
    return result;
  } catch (error) {
    await client.query('rollback');
    throw error;
  } finally {
    client.release();
  }
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://floor');
  const account = await accountOf(req);
  if (account === null) return send(res, 401, { message: 'Não autenticado.' });

  const call = /^\/calls\/(\d+)$/.exec(url.pathname);
  if (req.method === 'GET' && call) {
    const { rows } = await pool.query({ name: 'call', text: `select ${CALL_COLUMNS} from calls where id = $1 and account_id = $2`, values: [Number(call[1]), account] });
    return rows[0] ? send(res, 200, rows[0]) : send(res, 404, { message: 'Chamada não encontrada' });
  }
  if (req.method === 'GET' && url.pathname === '/calls') {
    // vozgate's SQL (src/modules/calls/call-list.ts): page 1's ids from the filter's index,
    // then their rows, with the exact total from the counters (counted only by phone number);
    // a later page finds its day from the counters by month and by day, in one snapshot.
    const q = url.searchParams;
    const perPage = Number(q.get('per_page') ?? 15);
    const page = Number(q.get('page') ?? 1);
    const groups = ['account_id = ?'];
    const groupParams: unknown[] = [account];
    for (const column of ['status', 'type', 'assistant_id', 'campaign_id']) {
      const value = q.get(column);
      if (value === null) continue;
      groups.push(`${column} = ?`);
      groupParams.push(value);
    }
    const where = [...groups];
    const params = [...groupParams];
    const and = (condition: string, value: unknown) => {
      where.push(condition);
      params.push(value);
    };
    const phone = q.get('phone_number');
    if (phone !== null) and('client_phone_number = ?', phone);
    const from = q.get('date_from') || null;
    const to = q.get('date_to') ? dayAfter(q.get('date_to')!) : null;
    if (from !== null) and('created_at >= ?', `${from} 00:00:00+00`);
    if (to !== null) and('created_at < ?', `${to} 00:00:00+00`);
    const filter: CallFilter = {
      where: where.join(' and '),
      params,
      counters: phone === null ? { where: groups.join(' and '), params: groupParams, from, to, grouped: groups.length > 1 } : null,
    };
    const offset = (page - 1) * perPage;
    if (offset === 0) {
      const { rows, total } = await firstPage<Record<string, unknown>>(runOn(pool), filter, perPage, CALL_COLUMNS);
      return send(res, 200, { current_page: page, data: rows.map(({ page_total: _total, ...call }) => call), per_page: perPage, total });
    }
    return transaction(async (client) => {
      const { total, skip, through } = await seek(runOn(client), filter, offset);
      const rows = offset >= total ? [] : await runOn(client)(pageStatement(filter, perPage, skip, through, CALL_COLUMNS));
      return send(res, 200, { current_page: page, data: rows, per_page: perPage, total });
    }, 'isolation level repeatable read read only');
  }
  if (req.method === 'GET' && url.pathname === '/leads') {
    // The fields vozgate's REST list answers, timestamps formatted as the spec writes them.
    const perPage = Math.min(100, Math.max(1, Math.trunc(Number(url.searchParams.get('per_page') ?? 15)) || 15));
    const stamp = (column: string) => `${specTimestampSql(column)} as ${column.replace(/^\w+\./, '')}`;
    // Prepared statements, as vozgate's, the page size in the page's text.
    const { rows } = await pool.query({
      name: `leads-${perPage}`,
      text: `select l.id, l.campaign_id, l.phone_number, l.variables, l.status, l.attempts, ${stamp('l.next_attempt_at')}, ${stamp('l.created_at')}, ${stamp('l.updated_at')},
         c.name as campaign_name, (select count(*) from leads t where t.account_id = $1) as total
       from leads l join campaigns c on c.id = l.campaign_id where l.account_id = $1 order by l.id desc limit ${perPage}`,
      values: [account],
    });
    const contacts = await pool.query({
      name: 'contacts',
      text: `select id, lead_id, phone_number, variables, status, ${stamp('created_at')}, ${stamp('updated_at')} from secondary_contacts where lead_id = any($1) order by id`,
      values: [rows.map((r) => r.id)],
    });
    const byLead = new Map<number, unknown[]>();
    for (const { lead_id, ...contact } of contacts.rows) byLead.set(lead_id, [...(byLead.get(lead_id) ?? []), contact]);
    return send(
      res,
      200,
      rows.map(({ campaign_name, total: _total, ...lead }) => ({
        ...lead,
        campaign: { id: lead.campaign_id, name: campaign_name },
        secondary_contacts: byLead.get(lead.id) ?? [],
      })),
    );
  }
  if (req.method === 'POST' && url.pathname === '/leads') {
    // vozgate's work: the campaign share-locked with the duplicate check's lock, the check,
    // the lead and its contacts, the dialer woken when the campaign runs, in one transaction.
    const input = await body(req);
    return transaction(async (client) => {
      const campaign = await client.query(
        `select c.id, c.name, c.status, pg_advisory_xact_lock(c.id, hashtext($1)) is not null as locked from campaigns c where c.id = $2 and c.account_id = $3 for share of c`,
        [input.phone_number, input.campaign_id, account],
      );
      if (!campaign.rows[0]) return send(res, 404, { message: 'Campanha não encontrada' });
      const duplicate = await client.query('select count(*)::int as n from leads where campaign_id = $1 and phone_number = $2', [input.campaign_id, input.phone_number]);
      if (duplicate.rows[0].n > 0) return send(res, 422, { message: 'Falha na validação' });
      const { rows } = await client.query(
        `insert into leads (account_id, campaign_id, phone_number, variables) values ($1, $2, $3, $4) returning id, campaign_id, phone_number, variables, status`,
        [account, input.campaign_id, input.phone_number, input.variables ?? {}],
      );
      const contacts = input.secondary_contacts ?? [];
      if (contacts.length) {
        await client.query(
          `insert into secondary_contacts (lead_id, phone_number, variables) select $1, c->>'phone_number', coalesce(c->'variables', '{}') from jsonb_array_elements($2::jsonb) c`,
          [rows[0].id, JSON.stringify(contacts)],
        );
      }
      if (campaign.rows[0].status === 'running') {
        await client.query(`select graphile_worker.add_job('dialer:campaign', json_build_object('campaign_id', $1::int), job_key => 'dialer:' || $1)`, [input.campaign_id]);
      }
      const { id, name } = campaign.rows[0];
      return send(res, 200, { message: 'Lead created successfully', data: { ...rows[0], campaign: { id, name }, secondary_contacts: contacts } });
    });
  }
  if (req.method === 'POST' && url.pathname === '/sms') {
    // vozgate's work: the sender and the do-not-call check, the reservation (balance,
    // message as sending, ledger row, reconciliation job) in one transaction; the provider
    // (nothing here); then the settlement (sent, the job removed, the event) in another.
    const input = await body(req);
    const reserved = await transaction(async (client) => {
      const sender = await client.query(
        `select p.number, p.sms_enabled, exists (select 1 from dnc_numbers d where d.account_id = p.account_id and d.phone_number = $1) as listed
         from phone_numbers p where p.id = $2 and p.account_id = $3`,
        [input.to, input.from, account],
      );
      if (!sender.rows[0]?.sms_enabled) return void send(res, 404, { message: 'Número de origem não encontrado' });
      if (sender.rows[0].listed) return void send(res, 422, { message: 'Falha na validação' });
      const { rows } = await client.query(
        `with debit as (update accounts set balance = balance - 0.05, updated_at = now() where id = $1 and balance - 0.05 >= 0 returning balance),
         sms as (
           insert into sms_messages (account_id, phone_number_id, "from", "to", body, encoding, segments, segment_price, total_cost, status, provider)
           select $1, $2, $3, $4, $5, 'GSM-7', 1, 0.05, 0.05, 'sending', 'floor' from debit returning id),
         ledger as (insert into ledger_entries (account_id, amount, balance_after, kind, reference) select $1, -0.05, debit.balance, 'sms', 'sms:' || sms.id from debit, sms),
         job as (select graphile_worker.add_job('sms:reconcile', json_build_object('sms_id', sms.id), null, now() + interval '40 seconds', 25, 'sms-reconcile:' || sms.id) from sms)
         select sms.id from sms, job`,
        [account, input.from, sender.rows[0].number, input.to, input.body],
      );
      if (!rows[0]) return void send(res, 402, { message: 'Saldo insuficiente' });
      return rows[0].id as number;
    });
    if (reserved === undefined) return;
    await transaction(async (client) => {
      const { rows } = await client.query(
        `with settled as (update sms_messages set status = 'sent', sms_sid = 'SMfloor', updated_at = now() where id = $1 and status = 'sending' returning *),
         job as (select graphile_worker.remove_job('sms-reconcile:' || $1) from settled)
         select settled.* from settled left join job on true`,
        [reserved],
      );
      await client.query(
        `with ev as (insert into events (account_id, type, data) values ($1, 'sms.sent', $2::jsonb) returning id) select pg_notify('vozgate_events', (select string_agg(id::text, ',') from ev))`,
        [account, JSON.stringify(rows[0])],
      );
    });
    return send(res, 200, { message: 'SMS sent successfully', data: { id: reserved, status: 'sent' } });
  }
  send(res, 404, { message: 'Rota não encontrada.' });
}

const server = http.createServer((req, res) => {
  handle(req, res).catch((error) => {
    console.error(error);
    if (!res.headersSent) send(res, 500, { message: 'Erro interno do servidor.' });
  });
});
server.listen(port, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`floor listening on ${typeof address === 'object' && address ? address.port : port}\n`);
});
process.on('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))));
