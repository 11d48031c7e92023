import { loadConfig } from '../src/config';
import { initOrm } from '../src/db/orm';
import { createAccount } from '../src/modules/accounts/account.service';
import { createCampaign } from '../src/modules/campaigns/campaign.service';
import { dropDatabase, freshDatabase, startVozgate } from './process';

/**
 * The lead import scenario (issue 45): one API process with its workers in process, as
 * `npm start` runs it, on a database of its own. The same run measures
 * - the way an operator imports without it: one POST /user/lead per row, from one client in
 *   sequence (a script), and from 10 clients at once;
 * - POST /user/leads/import of a file of `rows` rows (1% invalid, 1% duplicates, 0.5% on the
 *   do-not-call list), from the request to the import's `done`, with its counts checked exact.
 */
export interface ImportResult {
  rows: number;
  import_s: number;
  import_rows_per_s: number;
  per_row_sequential_rows_per_s: number;
  per_row_10_clients_rows_per_s: number;
  /** The import's rate over the faster of the two per-row rates. */
  ratio_to_per_row: number;
  counts: { created: number; duplicates: number; invalid: number; blacklisted: number };
  counts_exact: boolean;
  batch_rows: number;
}

const PER_ROW_REQUESTS = 2000;
const phone = (n: number) => `+55119${String(50000000 + n)}`;

export async function runImportScenario(adminUrl: string, root: string, rows: number, log: (line: string) => void, node = process.execPath): Promise<ImportResult> {
  const database = 'vozgate_bench_import';
  const databaseUrl = await freshDatabase(adminUrl, database);
  const orm = await initOrm({ databaseUrl });
  const config = loadConfig({});
  const { account, token } = await createAccount(orm.em.fork(), { name: 'Import', balance: '100' });
  const scope = { em: orm.em.fork(), accountId: account.id, config };
  const perRowCampaign = (await createCampaign(scope, { name: 'One request per row' })).id;
  const importCampaign = (await createCampaign({ ...scope, em: orm.em.fork() }, { name: 'Imported' })).id;
  const server = await startVozgate(root, databaseUrl, { WORKERS_IN_PROCESS: 'true', LEAD_IMPORT_MAX_ROWS: String(Math.max(rows, 100_000)) }, [], node);
  const base = `http://127.0.0.1:${server.port}/api`;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  try {
    const post = (n: number) =>
      fetch(`${base}/user/lead`, { method: 'POST', headers, body: JSON.stringify({ campaign_id: perRowCampaign, phone_number: phone(n), variables: { customer_name: `Cliente ${n}` } }) }).then(async (res) => {
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`POST /user/lead: ${res.status}`);
      });
    // Warm-up, then one client in sequence.
    for (let i = 0; i < 200; i++) await post(1_000_000 + i);
    let started = performance.now();
    for (let i = 0; i < PER_ROW_REQUESTS; i++) await post(i);
    const sequential = PER_ROW_REQUESTS / ((performance.now() - started) / 1000);
    log(`import: one POST /user/lead per row, one client: ${sequential.toFixed(0)} rows/s`);
    started = performance.now();
    let next = 0;
    await Promise.all(Array.from({ length: 10 }, async () => {
      while (next < PER_ROW_REQUESTS) await post(2_000_000 + next++);
    }));
    const concurrent = PER_ROW_REQUESTS / ((performance.now() - started) / 1000);
    log(`import: one POST /user/lead per row, 10 clients: ${concurrent.toFixed(0)} rows/s`);

    // The file: 1% invalid, 1% duplicates (of the row before), 0.5% on the do-not-call list.
    const dnc: string[] = [];
    const lines = ['phone_number,customer_name,email'];
    let invalid = 0;
    let duplicates = 0;
    for (let i = 1; i <= rows; i++) {
      if (i % 100 === 0) {
        lines.push(`not-a-number-${i},x,`);
        invalid++;
      } else if (i % 100 === 50) {
        lines.push(lines[lines.length - 1]);
        duplicates++;
      } else {
        lines.push(`${phone(3_000_000 + i)},"Cliente ${i}, Silva",c${i}@example.com`);
        if (i % 200 === 7) dnc.push(phone(3_000_000 + i));
      }
    }
    for (const number of dnc) await fetch(`${base}/user/dnc`, { method: 'POST', headers, body: JSON.stringify({ phone_number: number }) }).then((res) => res.arrayBuffer());
    const form = new FormData();
    form.append('campaign_id', String(importCampaign));
    form.append('file', new Blob([lines.join('\r\n')], { type: 'text/csv' }), 'leads.csv');
    log(`import: ${rows} rows (${(Buffer.byteLength(lines.join('\r\n')) / 1e6).toFixed(1)} MB)`);
    started = performance.now();
    const res = await fetch(`${base}/user/leads/import`, { method: 'POST', headers: { authorization: headers.authorization }, body: form });
    const body = (await res.json()) as { data: { id: number } };
    if (res.status !== 202) throw new Error(`POST /user/leads/import: ${res.status} ${JSON.stringify(body)}`);
    let state: any;
    for (;;) {
      state = await fetch(`${base}/user/leads/import/${body.data.id}`, { headers }).then((r) => r.json());
      if (state.status === 'done' || state.status === 'failed') break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const seconds = (performance.now() - started) / 1000;
    const rate = rows / seconds;
    const [{ n }] = await orm.em.fork().execute('select count(*)::int as n from leads where campaign_id = ?', [importCampaign]);
    const created = rows - invalid - duplicates;
    const counts = { created: state.created, duplicates: state.duplicates, invalid: state.invalid, blacklisted: state.blacklisted };
    const exact = state.status === 'done' && n === created && counts.created === created && counts.duplicates === duplicates && counts.invalid === invalid && counts.blacklisted === dnc.length;
    log(`import: ${rows} rows in ${seconds.toFixed(2)} s: ${rate.toFixed(0)} rows/s; counts ${JSON.stringify(counts)} ${exact ? 'exact' : 'WRONG'}`);
    return {
      rows,
      import_s: Math.round(seconds * 100) / 100,
      import_rows_per_s: Math.round(rate),
      per_row_sequential_rows_per_s: Math.round(sequential),
      per_row_10_clients_rows_per_s: Math.round(concurrent),
      ratio_to_per_row: Math.round((rate / Math.max(sequential, concurrent)) * 10) / 10,
      counts,
      counts_exact: exact,
      batch_rows: config.leadImport.batchRows,
    };
  } finally {
    server.child.kill('SIGTERM');
    await new Promise((resolve) => (server.child.exitCode !== null ? resolve(null) : server.child.once('exit', resolve)));
    await orm.close();
    await dropDatabase(adminUrl, database);
  }
}

export function importTable(r: ImportResult): string {
  return [
    '| lead import | rows | seconds | rows/s | one POST /user/lead per row, 1 client (rows/s) | same, 10 clients (rows/s) | import ÷ faster per-row | counts exact |',
    '|---|---|---|---|---|---|---|---|',
    `| POST /user/leads/import (batches of ${r.batch_rows}) | ${r.rows} | ${r.import_s} | ${r.import_rows_per_s} | ${r.per_row_sequential_rows_per_s} | ${r.per_row_10_clients_rows_per_s} | ${r.ratio_to_per_row}x | ${r.counts_exact ? 'yes' : 'NO'} (${r.counts.created} created, ${r.counts.duplicates} duplicates, ${r.counts.invalid} invalid, ${r.counts.blacklisted} blacklisted) |`,
  ].join('\n');
}
