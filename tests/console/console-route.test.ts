import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { startTestApp, type TestApp } from '../helpers/app';

/**
 * /console as the server serves it from dist/console/: the app's page for the app's own
 * routes (a reload of /console/calls/7 works), its hashed assets compressed, a 404 for an
 * asset that is not there (an old hash), nothing at all with CONSOLE=false.
 */
const root = path.resolve(__dirname, '../..');
let app: TestApp;
let off: TestApp;

beforeAll(async () => {
  execFileSync(process.execPath, [path.join(root, 'scripts/build.mjs')], { stdio: 'inherit', env: { ...process.env, CONSOLE: 'true' } });
  app = await startTestApp();
  off = await startTestApp({ console: false });
}, 240_000);
afterAll(async () => {
  await app?.close();
  await off?.close();
});

function get(base: string, pathname: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${pathname}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

it('is on unless CONSOLE=false', () => {
  expect(loadConfig({}).console).toBe(true);
  expect(loadConfig({ CONSOLE: 'false' }).console).toBe(false);
  expect(() => loadConfig({ CONSOLE: 'maybe' })).toThrow(/CONSOLE must be true or false/);
});

it('answers the app’s page at /console and at every route of the app', async () => {
  for (const pathname of ['/console', '/console/', '/console/calls/7', '/console/campaigns/3/edit']) {
    const res = await get(app.url, pathname);
    expect([pathname, res.status]).toEqual([pathname, 200]);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body.toString()).toContain('<div id="root"></div>');
    expect(res.headers['cache-control']).toBe('public, no-cache');
  }
});

it('serves the built assets, compressed, and a 404 for one the build did not write', async () => {
  const script = readdirSync(path.join(root, 'dist/console/assets')).find((name) => name.endsWith('.js'))!;
  const res = await get(app.url, `/console/assets/${script}`, { 'accept-encoding': 'gzip' });
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
  expect(res.headers['content-encoding']).toBe('gzip');
  expect((await get(app.url, '/console/assets/index-00000000.js')).status).toBe(404);
  expect((await get(app.url, '/console/../package.json')).status).not.toBe(200);
  expect((await get(app.url, '/console/%2e%2e/package.json')).body.toString()).not.toContain('"dependencies"');
});

it('is not there with CONSOLE=false', async () => {
  expect((await get(off.url, '/console')).status).toBe(404);
  expect((await get(off.url, '/console/calls')).status).toBe(404);
});
