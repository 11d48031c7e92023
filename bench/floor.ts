import { createHash } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { Pool } from 'pg';

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
  const { rows } = await pool.query('select account_id from api_tokens where token_hash = $1', [digest]);
  return rows[0]?.account_id ?? null;
}

async function body(req: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
}

const CALL_COLUMNS = `id, assistant_name, campaign_name, type, duration, assistant_phone_number, client_phone_number, status, transcript,
  variables, evaluation, webhook_response, carrier_cost::float8 as carrier_cost, total_cost::float8 as total_cost, answered_by, recording_url,
  to_char(created_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS') as created_at, to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS') as updated_at`;

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://floor');
  const account = await accountOf(req);
  if (account === null) return send(res, 401, { message: 'Não autenticado.' });

  const call = /^\/calls\/(\d+)$/.exec(url.pathname);
  if (req.method === 'GET' && call) {
    const { rows } = await pool.query(`select ${CALL_COLUMNS} from calls where id = $1 and account_id = $2`, [Number(call[1]), account]);
    return rows[0] ? send(res, 200, rows[0]) : send(res, 404, { message: 'Chamada não encontrada' });
  }
  if (req.method === 'GET' && url.pathname === '/calls') {
    // vozgate's SQL: the exact total from the per-day counters (counted only by phone number),
    // the page's ids from the filter's index, then their rows.
    const q = url.searchParams;
    const perPage = Number(q.get('per_page') ?? 15);
    const page = Number(q.get('page') ?? 1);
    const calls = ['account_id = $1'];
    const counts = ['account_id = $1'];
    const params: unknown[] = [account];
    for (const column of ['status', 'type', 'assistant_id', 'campaign_id']) {
      const value = q.get(column);
      if (value === null) continue;
      params.push(value);
      calls.push(`${column} = $${params.length}`);
      counts.push(`${column} = $${params.length}`);
    }
    const phone = q.get('phone_number');
    if (phone !== null) {
      params.push(phone);
      calls.push(`client_phone_number = $${params.length}`);
    }
    if (q.get('date_from')) {
      params.push(q.get('date_from'));
      calls.push(`created_at >= $${params.length}::date`);
      counts.push(`day >= $${params.length}::date`);
    }
    if (q.get('date_to')) {
      params.push(q.get('date_to'));
      calls.push(`created_at < $${params.length}::date + 1`);
      counts.push(`day < $${params.length}::date + 1`);
    }
    const count =
      phone === null
        ? await pool.query(
            `select coalesce(sum(n), 0)::int as total from (select n from call_counts where ${counts.join(' and ')}
             union all select n from call_count_deltas where ${counts.join(' and ')}) counted`,
            params,
          )
        : await pool.query(`select count(*)::int as total from calls where ${calls.join(' and ')}`, params);
    const { rows } = await pool.query(
      `select ${CALL_COLUMNS} from (select id from calls where ${calls.join(' and ')} order by id desc limit $${params.length + 1} offset $${params.length + 2}) page
       join calls using (id) order by id desc`,
      [...params, perPage, (page - 1) * perPage],
    );
    return send(res, 200, { current_page: page, data: rows, per_page: perPage, total: count.rows[0].total });
  }
  if (req.method === 'GET' && url.pathname === '/leads') {
    const perPage = Number(url.searchParams.get('per_page') ?? 15);
    const { rows } = await pool.query(
      `select l.id, l.campaign_id, l.phone_number, l.variables, l.status, c.name as campaign_name, count(*) over () as total,
         to_char(l.created_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS') as created_at, to_char(l.updated_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS') as updated_at
       from leads l join campaigns c on c.id = l.campaign_id where l.account_id = $1 order by l.id desc limit $2`,
      [account, perPage],
    );
    const contacts = await pool.query('select id, lead_id, phone_number, variables, status from secondary_contacts where lead_id = any($1) order by id', [
      rows.map((r) => r.id),
    ]);
    const byLead = new Map<number, unknown[]>();
    for (const c of contacts.rows) byLead.set(c.lead_id, [...(byLead.get(c.lead_id) ?? []), c]);
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
    const input = await body(req);
    const campaign = await pool.query('select id, name from campaigns where id = $1 and account_id = $2', [input.campaign_id, account]);
    if (!campaign.rows[0]) return send(res, 404, { message: 'Campanha não encontrada' });
    const { rows } = await pool.query(
      `insert into leads (account_id, campaign_id, phone_number, variables) values ($1, $2, $3, $4) returning id, campaign_id, phone_number, variables, status`,
      [account, input.campaign_id, input.phone_number, input.variables ?? {}],
    );
    return send(res, 200, { message: 'Lead created successfully', data: { ...rows[0], campaign: campaign.rows[0], secondary_contacts: [] } });
  }
  if (req.method === 'POST' && url.pathname === '/sms') {
    const input = await body(req);
    const client = await pool.connect();
    try {
      await client.query('begin');
      const phone = await client.query('select number from phone_numbers where id = $1 and account_id = $2 and sms_enabled', [input.from, account]);
      if (!phone.rows[0]) {
        await client.query('rollback');
        return send(res, 404, { message: 'Número de origem não encontrado' });
      }
      const debit = await client.query(
        'update accounts set balance = balance - 0.05 where id = $1 and balance - 0.05 >= 0 returning balance',
        [account],
      );
      if (!debit.rows[0]) {
        await client.query('rollback');
        return send(res, 402, { message: 'Saldo insuficiente' });
      }
      const sms = await client.query(
        `insert into sms_messages (account_id, phone_number_id, "from", "to", body, encoding, segments, segment_price, total_cost, status, provider, sms_sid)
         values ($1, $2, $3, $4, $5, 'GSM-7', 1, 0.05, 0.05, 'sent', 'floor', 'SMfloor') returning id`,
        [account, input.from, phone.rows[0].number, input.to, input.body],
      );
      await client.query(
        `insert into ledger_entries (account_id, amount, balance_after, kind, reference) values ($1, -0.05, $2, 'sms', $3)`,
        [account, debit.rows[0].balance, `sms:${sms.rows[0].id}`],
      );
      await client.query('commit');
      return send(res, 200, { message: 'SMS sent successfully', data: { id: sms.rows[0].id, status: 'sent' } });
    } catch (error) {
      await client.query('rollback');
      throw error;
    } finally {
      client.release();
    }
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
