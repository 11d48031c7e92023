import type { MikroORM } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import { createAccount } from '../src/modules/accounts/account.service';
import { foldCallCounts } from '../src/modules/calls/call.service';

/**
 * The benchmark's data, built once per scale in the benchmark's own database: one account
 * with the big call history, nine with a tenth of it each, and leads in campaigns with zero
 * to three secondary contacts. Reused while the scale is the same.
 */
export interface Scale {
  name: 'full' | 'quick';
  bigAccountCalls: number;
  otherAccountCalls: number;
  otherAccounts: number;
  leads: number;
  /** Leads of the dialer scenario's campaign. */
  dialerLeads: number;
  /** Call status changes fanned out to the subscriptions scenario's 1,000 subscribers. */
  fanoutEvents: number;
  /** Seconds the voice scenario streams both ways. */
  voiceSeconds: number;
}

export const SCALES: Record<Scale['name'], Scale> = {
  full: { name: 'full', bigAccountCalls: 1_000_000, otherAccountCalls: 100_000, otherAccounts: 9, leads: 100_000, dialerLeads: 10_000, fanoutEvents: 100, voiceSeconds: 30 },
  quick: { name: 'quick', bigAccountCalls: 100_000, otherAccountCalls: 10_000, otherAccounts: 9, leads: 10_000, dialerLeads: 2_000, fanoutEvents: 30, voiceSeconds: 10 },
};

/** Bumped when the dataset's shape changes: an older one is built again. */
export const DATASET_VERSION = 2;

export interface Dataset {
  version: number;
  scale: Scale['name'];
  /** The big account: its token, assistant, SMS number and campaigns. */
  accountId: number;
  token: string;
  /** Its assistant, which every call of the account has. */
  assistantId: number;
  /** How many calls the big account has (their numbers are +55119 and the call's index in 8 digits). */
  bigAccountCalls: number;
  campaignIds: number[];
  smsNumberId: number;
  callIds: { min: number; max: number };
  /** The last lead of the dataset; the scenarios' own leads come after it. */
  lastLeadId: number;
  /** Completed calls of the big account in the filtered date range, for the paging scenarios. */
  filteredCalls: number;
}

const BATCH = 50_000;
const CALL_DAYS = 365;

function progress(label: string, done: number, total: number): void {
  const width = 30;
  const filled = Math.round((done / total) * width);
  process.stderr.write(`\r  ${label.padEnd(28)} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(Math.round((done / total) * 100)).padStart(3)}% ${done}/${total}`);
  if (done >= total) process.stderr.write('\n');
}

async function insertCalls(db: Client, accountId: number, assistantId: number, campaignIds: number[], count: number, label: string): Promise<void> {
  for (let done = 0; done < count; done += BATCH) {
    const n = Math.min(BATCH, count - done);
    // Statuses, types and numbers spread deterministically; a year of created_at.
    await db.query(
      `insert into calls (account_id, assistant_id, assistant_name, campaign_id, campaign_name, type, status, assistant_phone_number, client_phone_number,
         duration, answered_by, transcript, variables, carrier_cost, total_cost, provider, deadline_at, finished_at, created_at, updated_at)
       select $1, $2, 'Ana', ($6::int[])[1 + g % 11], case when g % 11 < cardinality($6::int[]) then 'Campanha' end,
         case when g % 10 = 0 then 'inbound' else 'outbound' end,
         (array['completed','completed','completed','busy','no-answer','failed','ended_by_customer','ended_by_assistant','completed','ended'])[1 + g % 10],
         '+551140040000', '+55119' || lpad((g % 90000000)::text, 8, '0'), 30 + g % 300, 'human',
         'Assistente: Olá!\nCliente: Oi.', '{"interested": true}', 0.06, 0.11, 'simulator', now(), ts, ts, ts
       from (select g, now() - ((g % ($4 * 24 * 60))::text || ' minutes')::interval as ts
             from generate_series($3::int, $3::int + $5::int - 1) g) s`,
      [accountId, assistantId, done, CALL_DAYS, n, campaignIds],
    );
    progress(label, done + n, count);
  }
}

export async function loadDataset(db: Client): Promise<Dataset | null> {
  await db.query('create table if not exists bench_meta (key text primary key, value jsonb not null)');
  const { rows } = await db.query(`select value from bench_meta where key = 'dataset'`);
  return rows[0]?.value ?? null;
}

/** Builds the dataset at `scale` (after the migrations), replacing any other. */
export async function buildDataset(orm: MikroORM, db: Client, scale: Scale): Promise<Dataset> {
  process.stderr.write(`building the ${scale.name} dataset (once; kept for later runs)\n`);
  await db.query('truncate accounts, voices restart identity cascade');
  await db.query('truncate call_counts, call_counts_monthly, call_totals, account_call_counts, account_call_counts_monthly, account_call_totals, call_count_deltas'); // no foreign key to the accounts: truncated too
  await db.query(`insert into voices (name, mode) values ('Camila', 'pipeline')`);

  const accounts: { id: number; token: string; assistantId: number }[] = [];
  let smsNumberId = 0;
  for (let i = 0; i <= scale.otherAccounts; i++) {
    const { account, token } = await createAccount(orm.em.fork(), { name: `Bench ${i}`, balance: '100000000' });
    const { rows } = await db.query(
      `insert into phone_numbers (account_id, number, sms_enabled) values ($1, $2, true) returning id`,
      [account.id, `+55114004${String(1000 + i).padStart(4, '0')}`],
    );
    const assistant = await db.query(
      `insert into assistants (account_id, assistant_name, voice_id, language, llm_model, calls_direction, engine_type, timezone,
         initial_message, system_prompt, phone_number_id, endpoint_type, endpoint_sensitivity, interrupt_sensitivity, ambient_sound_volume,
         post_call_evaluation, send_webhook_only_on_completed, include_recording_in_webhook, is_webhook_active, use_min_interrupt_words,
         min_interrupt_words, llm_temperature, voice_stability, voice_similarity, speech_speed, allow_interruptions, filler_audios,
         re_engagement_interval, max_call_duration, max_silence_duration, end_call_on_voicemail, noise_cancellation, record_call, who_speaks_first)
       values ($1, 'Ana', 1, 'Portuguese', 'gpt-4o-mini', 'make', 'pipeline', 'America/Sao_Paulo', 'Olá!', 'Seja breve.', $2, 'vad', 2.5, 2.5, 0,
         false, false, false, false, false, 2, 0.7, 0.5, 0.75, 1, true, false, 30, 600, 30, true, true, true, 'AI assistant') returning id`,
      [account.id, rows[0].id],
    );
    accounts.push({ id: account.id, token, assistantId: assistant.rows[0].id });
    if (i === 0) smsNumberId = rows[0].id;
  }

  const big = accounts[0];
  const campaigns = await db.query(
    `insert into campaigns (account_id, name) select $1, 'Campanha ' || g from generate_series(1, 10) g returning id`,
    [big.id],
  );
  const campaignIds: number[] = campaigns.rows.map((r) => r.id);
  // A call in eleven has no campaign.
  await insertCalls(db, big.id, big.assistantId, campaignIds, scale.bigAccountCalls, 'calls of the big account');
  for (const [index, account] of accounts.slice(1).entries()) {
    await insertCalls(db, account.id, account.assistantId, [], scale.otherAccountCalls, `calls of account ${index + 2}/${accounts.length}`);
  }
  for (let done = 0; done < scale.leads; done += BATCH) {
    const n = Math.min(BATCH, scale.leads - done);
    await db.query(
      `insert into leads (account_id, campaign_id, phone_number, variables, created_at, updated_at)
       select $1, ($2::int[])[1 + g % 10], '+55119' || lpad(g::text, 8, '0'), jsonb_build_object('customer_name', 'Cliente ' || g),
         now() - (g || ' seconds')::interval, now()
       from generate_series($3::int, $3::int + $4::int - 1) g`,
      [big.id, campaignIds, done, n],
    );
    progress('leads', done + n, scale.leads);
  }
  await db.query(
    `insert into secondary_contacts (lead_id, phone_number)
     select l.id, '+55118' || lpad((l.id * 4 + k)::text, 8, '0') from leads l, generate_series(1, 3) k where k <= l.id % 4`,
  );
  // The call counters: the inserts' changes, folded as the sweeper does.
  await foldCallCounts(orm.em.fork());
  process.stderr.write('  analysing\n');
  await db.query('vacuum analyze');

  const ids = await db.query('select min(id)::int as min, max(id)::int as max from calls where account_id = $1', [big.id]);
  const lastLead = await db.query('select coalesce(max(id), 0)::int as id from leads');
  const filtered = await db.query(
    `select count(*)::int as n from calls where account_id = $1 and status = 'completed' and created_at >= $2 and created_at < $3`,
    [big.id, filterRange().from, filterRange().toExclusive],
  );
  const dataset: Dataset = {
    version: DATASET_VERSION,
    scale: scale.name,
    accountId: big.id,
    token: big.token,
    assistantId: big.assistantId,
    bigAccountCalls: scale.bigAccountCalls,
    campaignIds,
    smsNumberId,
    callIds: ids.rows[0],
    lastLeadId: lastLead.rows[0].id,
    filteredCalls: filtered.rows[0].n,
  };
  await db.query(`insert into bench_meta (key, value) values ('dataset', $1) on conflict (key) do update set value = excluded.value`, [JSON.stringify(dataset)]);
  return dataset;
}

/** The date filter of the list scenarios: most of the past year. */
export function filterRange(): { from: string; to: string; toExclusive: string } {
  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  return { from: day(-300), to: day(0), toExclusive: day(1) };
}

/** Takes away what earlier runs' create-lead and send-SMS scenarios added, so runs compare. */
export async function resetDataset(db: Client, data: Dataset): Promise<void> {
  await db.query('delete from leads where id > $1', [data.lastLeadId]);
  await db.query('delete from sms_messages');
  await db.query(`delete from ledger_entries where kind in ('sms', 'sms_refund')`);
  await db.query(`update accounts set balance = 100000000`);
  await db.query('vacuum analyze calls, leads, sms_messages, ledger_entries, accounts');
}
