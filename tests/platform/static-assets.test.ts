import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { codingWeight } from '../../src/docs/static';
import { startTestApp, type TestApp } from '../helpers/app';

/**
 * The pages' assets as a browser gets them, over raw HTTP (fetch would decompress out of
 * sight): compressed as Accept-Encoding allows, with an ETag per encoding and a 304 for it,
 * and the icon at /favicon.ico.
 */
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ graphql: { ide: true } });
});
afterAll(() => app?.close());

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function get(pathname: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${app.url}${pathname}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const graphiqlBundle = readFileSync(path.join(path.dirname(require.resolve('graphiql/package.json')), 'graphiql.min.js'));
const swaggerBundle = readFileSync(path.join(path.dirname(require.resolve('swagger-ui-dist/package.json')), 'swagger-ui-bundle.js'));

describe('a page’s asset', () => {
  it('goes out in brotli to a browser that takes it, a sixth of its size, the same bytes once decoded', async () => {
    const res = await get('/ide/assets/graphiql.min.js', { 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers.vary).toBe('Accept-Encoding');
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(Number(res.headers['content-length'])).toBe(res.body.length);
    expect(res.body.length).toBeLessThan(graphiqlBundle.length / 4);
    expect(brotliDecompressSync(res.body).equals(graphiqlBundle)).toBe(true);
    expect(res.headers.etag).toMatch(/^"[\w-]+-br"$/);
  });

  it('goes out in gzip to a client that takes only gzip, and as it is to one that names no encoding', async () => {
    const gz = await get('/ide/assets/graphiql.min.js', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).equals(graphiqlBundle)).toBe(true);
    const refused = await get('/ide/assets/graphiql.min.js', { 'accept-encoding': 'br;q=0, gzip;q=0.5' });
    expect(refused.headers['content-encoding']).toBe('gzip');
    const plain = await get('/ide/assets/graphiql.min.js');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toBe('Accept-Encoding');
    expect(plain.body.equals(graphiqlBundle)).toBe(true);
    // Each encoding is a representation of its own, with a tag of its own.
    expect(new Set([gz.headers.etag, plain.headers.etag, (await get('/ide/assets/graphiql.min.js', { 'accept-encoding': 'br' })).headers.etag]).size).toBe(3);
  });

  it('answers 304, with no body, to a request that has its ETag; HEAD sends the headers alone', async () => {
    const first = await get('/docs/assets/swagger-ui-bundle.js', { 'accept-encoding': 'br' });
    expect(first.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(first.body).equals(swaggerBundle)).toBe(true);
    expect(first.headers['cache-control']).toBe('public, max-age=86400');
    const again = await get('/docs/assets/swagger-ui-bundle.js', { 'accept-encoding': 'br', 'if-none-match': `"x", W/${first.headers.etag}` });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers.etag).toBe(first.headers.etag);
    // The tag of another encoding does not stand for this one.
    expect((await get('/docs/assets/swagger-ui-bundle.js', { 'accept-encoding': 'gzip', 'if-none-match': first.headers.etag! })).status).toBe(200);
    const head = await get('/docs/assets/swagger-ui-bundle.js', { 'accept-encoding': 'br' }, 'HEAD');
    expect([head.status, head.body.length, head.headers['content-length']]).toEqual([200, 0, first.headers['content-length']]);
  });

  it('made at start-up (the pages, the OpenAPI document) is checked again by caches each time; the big ones are compressed too', async () => {
    for (const [pathname, accept] of [['/docs', 'text/html'], ['/graphql', 'text/html'], ['/ide/assets/init.js', '*/*'], ['/api/openapi.json', 'application/json']]) {
      const res = await get(pathname, { accept, 'accept-encoding': 'gzip' });
      expect([pathname, res.status, res.headers['cache-control']]).toEqual([pathname, 200, 'public, no-cache']);
      expect((await get(pathname, { accept, 'accept-encoding': 'gzip', 'if-none-match': res.headers.etag! })).status).toBe(304);
    }
    const document = await get('/api/openapi.json', { 'accept-encoding': 'gzip' });
    expect(document.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(document.body).toString('utf8')).openapi).toMatch(/^3\.1/);
    // A page of a few hundred bytes is not worth it.
    expect((await get('/docs', { 'accept-encoding': 'gzip' })).headers['content-encoding']).toBeUndefined();
  });
});

describe('GET /favicon.ico', () => {
  it('is the project’s icon, an ICO, cached a day', async () => {
    const res = await get('/favicon.ico', { 'accept-encoding': 'gzip, br' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/x-icon');
    expect(res.headers['content-encoding']).toBeUndefined(); // its PNGs are compressed already
    expect(res.body.subarray(0, 4)).toEqual(Buffer.from([0, 0, 1, 0]));
    expect(res.body.readUInt16LE(4)).toBe(2); // 16 and 32 px
    expect(res.headers['cache-control']).toBe('public, max-age=86400');
  });

  it('is there with GraphiQL off too', async () => {
    const off = await startTestApp({ graphql: { ide: false } });
    try {
      expect((await fetch(`${off.url}/favicon.ico`)).status).toBe(200);
    } finally {
      await off.close();
    }
  });
});

describe('Accept-Encoding', () => {
  it.each([
    ['gzip, br', 'br', 1],
    ['gzip;q=0.8, *;q=0.1', 'br', 0.1],
    ['gzip;q=0.8, *;q=0.1', 'gzip', 0.8],
    ['identity', 'gzip', 0],
    ['BR; Q=0.5', 'br', 0.5],
    ['br;q=nonsense', 'br', 0],
    ['', 'gzip', 0],
  ])('%j gives %s the weight %d', (header, coding, weight) => {
    expect(codingWeight(header, coding)).toBe(weight);
  });
});
