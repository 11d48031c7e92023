import { execFile } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';

/**
 * What a user of the REST API does with the OpenAPI document: generate types with
 * openapi-typescript, write a client with openapi-fetch, and have the compiler check it.
 * The client below must type-check (free-form `variables` with any key, the status
 * vocabularies as unions, the paging headers) and work against a server.
 */
const ROOT = path.join(__dirname, '..', '..');
let app: TestApp;
let me: TestAccount;
let dir: string;

const CLIENT = `
import createClient from 'openapi-fetch';
import type { components, paths } from './api';

type Lead = components['schemas']['Lead'];
type LeadStatus = 'created' | 'scheduled' | 'processing' | 'rescheduled' | 'completed' | 'reached-max-retries' | 'blacklisted';

export async function main(baseUrl: string, token: string, campaignId: number) {
  const client = createClient<paths>({ baseUrl: baseUrl + '/api', headers: { Authorization: 'Bearer ' + token } });
  const created = await client.POST('/user/lead', {
    body: { phone_number: '+5511987654321', campaign_id: campaignId, variables: { customer_name: 'Ana', email: 'ana@example.com' } },
  });
  if (created.error) throw new Error(created.error.code + ': ' + created.error.message);
  const lead: Lead = created.data.data;
  const status: LeadStatus = lead.status;

  const read = await client.GET('/user/leads/{id}', { params: { path: { id: lead.id } } });
  if (read.error) throw new Error(read.error.message);
  const customerName = read.data.variables.customer_name;
  if (typeof customerName !== 'string') throw new Error('customer_name is not a string');

  const page = await client.GET('/user/leads', { params: { query: { campaign_id: campaignId, per_page: 1 } } });
  if (page.error) throw new Error(page.error.message);
  const phones: string[] = page.data.map((item) => item.phone_number);

  const missing = await client.GET('/user/leads/{id}', { params: { path: { id: 999999 } } });
  const code: components['schemas']['Error']['code'] | undefined = missing.error?.code;

  return { id: lead.id, status, customerName: customerName.toUpperCase(), phones, total: page.response.headers.get('x-total-count'), code };
}
`;

/** The compiler's complaints about the client, one line each. */
function typeErrors(source: string): string[] {
  const file = path.join(dir, 'client.ts');
  writeFileSync(file, source);
  const program = ts.createProgram([file], {
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: [],
    skipLibCheck: true,
    outDir: dir,
  });
  const errors = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  if (!errors.length) program.emit();
  return errors;
}

beforeAll(async () => {
  app = await startTestApp();
  me = await app.account();
  dir = mkdtempSync(path.join(tmpdir(), 'vozgate-openapi-client-'));
  // The client's imports resolve as in a user's project that installed both packages.
  symlinkSync(realpathSync(path.join(ROOT, 'node_modules')), path.join(dir, 'node_modules'));
  writeFileSync(path.join(dir, 'openapi.json'), (await app.request('GET', '/api/openapi.json')).text);
  // Its command line, as a user runs it (the package is ESM, which jest's runtime does not load).
  const cli = path.join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js');
  await promisify(execFile)(process.execPath, [cli, path.join(dir, 'openapi.json'), '-o', path.join(dir, 'api.d.ts')]);
});
afterAll(async () => {
  await app?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('generates types that have no object without keys (Record<string, never>) but the generator’s own $defs', () => {
  const types = ts.sys.readFile(path.join(dir, 'api.d.ts'))!;
  expect(types.match(/.*Record<string, never>.*/g)).toEqual(['export type $defs = Record<string, never>;']);
});

it('a client made with openapi-fetch on the generated types type-checks, and a wrong field does not', () => {
  expect(typeErrors(CLIENT)).toEqual([]);
  const wrong = typeErrors(CLIENT.replace('const status: LeadStatus = lead.status;', 'const status: LeadStatus = lead.stauts;'));
  expect(wrong).toEqual([expect.stringContaining("Property 'stauts' does not exist")]);
  const notAString = typeErrors(CLIENT.replace("if (typeof customerName !== 'string') throw new Error('customer_name is not a string');", ''));
  expect(notAString).toEqual([expect.stringContaining("'customerName' is of type 'unknown'")]);
});

it('creates a lead with variables and reads variables.customer_name back, through the typed client against a server', async () => {
  expect(typeErrors(CLIENT)).toEqual([]);
  const script = `require(${JSON.stringify(path.join(dir, 'client.js'))}).main(...process.argv.slice(1, 3), Number(process.argv[3])).then((r) => console.log(JSON.stringify(r)))`;
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', script, app.url, me.token, String(me.campaignId)]);
  expect(JSON.parse(stdout)).toEqual({
    id: expect.any(Number),
    status: 'created',
    customerName: 'ANA',
    phones: ['+5511987654321'],
    total: '1',
    code: 'NOT_FOUND',
  });
});
