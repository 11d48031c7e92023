import { spawn } from 'node:child_process';
import path from 'node:path';
import { createLogger, terminalLines } from '../../src/log';
import { startTestApp, type TestApp } from '../helpers/app';

const lines: string[] = [];
const destination = { write: (line: string) => void lines.push(line) };
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({}, { logger: createLogger('debug', destination) });
});
afterAll(() => app?.close());

const records = () => lines.map((line) => JSON.parse(line));

describe('logs', () => {
  it('are JSON lines that censor credentials wherever they appear', () => {
    const logger = createLogger('info', destination);
    logger.info('probe', { headers: { authorization: 'Bearer vzg_secret' }, token: 'vzg_secret', nested: { secret: 'whsec_x' } });
    const probe = records().find((r) => r.msg === 'probe');
    expect(probe).toMatchObject({ level: 30, service: 'vozgate', headers: { authorization: '[redacted]' }, token: '[redacted]', nested: { secret: '[redacted]' } });
    expect(lines.join('')).not.toContain('vzg_secret');
  });

  it('record each request and each unexpected error with the request id, never the token', async () => {
    const account = await app.account();
    await app.sql(`create function refuse_campaign() returns trigger language plpgsql as $$ begin raise exception 'disk on fire'; end $$;
                   create trigger refuse_campaign before insert on campaigns for each row execute function refuse_campaign();`);
    try {
      const rest = await app.request('POST', '/api/user/campaigns', { token: account.token, body: { name: 'X' } });
      expect(rest.status).toBe(500);
      expect(rest.text).not.toContain('disk on fire');
      const gql = await app.graphql('mutation { createCampaign(input: { name: "Y" }) { id } }', {}, account.token);
      expect(gql.body.errors[0]).toMatchObject({ message: 'Erro interno do servidor.', extensions: { code: 'INTERNAL' } });
      expect(gql.headers.get('cache-control')).toBe('no-store');

      for (const requestId of [rest.headers.get('x-request-id'), gql.headers.get('x-request-id')]) {
        const error = records().find((r) => r.level === 50 && r.request_id === requestId);
        expect(error).toBeDefined();
        expect(JSON.stringify(error.err)).toContain('disk on fire');
        const access = records().find((r) => r.msg === 'request' && r.request_id === requestId);
        expect(access).toMatchObject({ level: 30, service: 'vozgate', method: 'POST', status: expect.any(Number), ms: expect.any(Number), account_id: account.accountId });
      }
      expect(lines.join('')).not.toContain(account.token);
    } finally {
      await app.sql('drop trigger refuse_campaign on campaigns; drop function refuse_campaign();');
    }
  });

  it('answer a failure before the operation runs in the shape of its API, and log it with the request id', async () => {
    const account = await app.account();
    // The token check is the first statement of every request: with its column gone, it fails.
    await app.sql('alter table api_tokens rename column token_hash to token_hash_gone');
    try {
      const rest = await app.request('GET', '/api/user/leads', { token: account.token });
      expect(rest.status).toBe(500);
      expect(rest.body).toEqual({ message: 'Erro interno do servidor.', code: 'INTERNAL' });
      const gql = await app.graphql('{ leads { total } }', {}, account.token);
      expect(gql.status).toBe(500);
      expect(gql.body).toEqual({ errors: [{ message: 'Erro interno do servidor.', extensions: { code: 'INTERNAL', status: 500 } }] });
      for (const response of [rest, gql]) {
        expect(response.text).not.toMatch(/token_hash|column|api_tokens/);
        const error = records().find((r) => r.level === 50 && r.request_id === response.headers.get('x-request-id'));
        expect(error).toMatchObject({ msg: 'request failed' });
      }
    } finally {
      await app.sql('alter table api_tokens rename column token_hash_gone to token_hash');
    }
    expect((await app.graphql('{ leads { total } }', {}, account.token)).body).toEqual({ data: { leads: { total: 0 } } });
  });

  it('on a terminal, give a request one short line (pino-pretty gives it seven), and the rest pino-pretty’s lines', () => {
    const written: string[] = [];
    const logger = createLogger('info', terminalLines({ write: (text) => written.push(text) }, false));
    logger.access({ request_id: '5f0c1d2e', method: 'POST', route: '/api/user/lead', status: 422, ms: 14, account_id: 1 });
    logger.access({ request_id: '5f0c1d2f', method: 'GET', route: '/healthz', status: 200, ms: 1, account_id: null });
    logger.warn('twilio: refused a callback', { checked_url: 'https://example.com/telephony/twilio/status' });
    expect(written[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: POST \/api\/user\/lead 422 14 ms account 1 req 5f0c1d2e\n$/);
    expect(written[1]).toMatch(/\] INFO: GET \/healthz 200 1 ms req 5f0c1d2f\n$/);
    expect(written[2]).toContain('WARN');
    expect(written[2]).toContain('checked_url: "https://example.com/telephony/twilio/status"');
    expect(written.join('')).not.toContain('{"');
  });

  it('reach standard output while the process runs, batched, and all of them by the time it exits', async () => {
    // The compiled logger in a process of its own, writing to a pipe: one line, then, once the
    // test has read it, 2,000 more (about 200 KB) and an immediate exit.
    const logModule = path.resolve(__dirname, '../../dist/src/log.js');
    const script = `
      const log = require(${JSON.stringify(logModule)}).createLogger('info');
      log.info('first');
      process.stdin.once('data', () => {
        for (let i = 0; i < 2000; i++) log.info('burst', { i });
        process.exit(0);
      });`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
    let output = '';
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const closed = new Promise((resolve) => child.stdout.once('close', resolve));
    // The first line arrives on its own, with nothing after it to fill a batch.
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill();
        reject(new Error(`no first line after 10 s:\n${output}`));
      }, 10_000);
      child.once('exit', (code) => reject(new Error(`exited (${code}) before its first line:\n${output}`)));
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('"msg":"first"')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    child.stdin.end('go');
    expect(await exited).toBe(0);
    await closed;
    const burst = output.trim().split('\n').map((line) => JSON.parse(line)).filter((r) => r.msg === 'burst');
    expect(burst.map((r) => r.i)).toEqual(Array.from({ length: 2000 }, (_, i) => i));
  });
});
