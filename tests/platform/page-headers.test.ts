import { createHash } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { cspViolations, launchChromium, runInBrowser } from '../helpers/chromium';
import { startTestApp, type TestApp } from '../helpers/app';

/**
 * The pages' security headers (src/web/page-headers.ts) over HTTP: GraphiQL, /docs, /console and
 * /talk, and their assets, each with a Content-Security-Policy that runs only this server's
 * scripts and is framed by no one, `Referrer-Policy: no-referrer` and `nosniff`. The browser
 * tests of GraphiQL, /talk and the console check that the policies refuse nothing the pages
 * do; /docs is checked here.
 */
let app: TestApp;
let browser: Browser | undefined;

beforeAll(async () => {
  app = await startTestApp({ graphql: { ide: true } });
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

/** A CSP header as directive → sources. */
function policy(header: string | null): Record<string, string[]> {
  expect(header).toBeTruthy();
  return Object.fromEntries(
    header!.split(';').map((directive) => {
      const [name, ...sources] = directive.trim().split(/\s+/);
      return [name, sources];
    }),
  );
}

const PAGES: [string, Record<string, string>][] = [
  ['/graphql', { accept: 'text/html' }],
  ['/ide/assets/init.js', {}],
  ['/ide/assets/graphiql.min.js', {}],
  ['/docs', {}],
  ['/docs/assets/init.js', {}],
  ['/console', {}],
  ['/console/calls/7', {}],
  ['/talk', {}],
  ['/talk/talk.js', {}],
  ['/talk/worklet.js', {}],
];

describe('every page and asset', () => {
  it.each(PAGES)('%s: only its own scripts, framed by no one, no referrer, nosniff', async (pathname, headers) => {
    const res = await fetch(`${app.url}${pathname}`, { headers });
    expect([200, 503]).toContain(res.status); // 503: /console when it is not built
    const csp = policy(res.headers.get('content-security-policy'));
    expect(csp['default-src']).toEqual(["'none'"]);
    expect(csp['script-src']).toEqual(["'self'"]);
    expect(csp['frame-ancestors']).toEqual(["'none'"]);
    expect(csp['base-uri']).toEqual(["'none'"]);
    expect(csp['connect-src'][0]).toBe("'self'");
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    // And again on a 304.
    const etag = res.headers.get('etag');
    if (etag) {
      const again = await fetch(`${app.url}${pathname}`, { headers: { ...headers, 'if-none-match': etag } });
      expect(again.status).toBe(304);
      expect(again.headers.get('content-security-policy')).toBe(res.headers.get('content-security-policy'));
    }
  });
});

describe('what each page needs beyond that', () => {
  it("GraphiQL: inline styles (its dialogs inject them) and data: fonts; no other page allows inline styles", async () => {
    const graphiql = policy((await fetch(`${app.url}/graphql`, { headers: { accept: 'text/html' } })).headers.get('content-security-policy'));
    expect(graphiql['style-src']).toEqual(["'self'", "'unsafe-inline'"]);
    expect(graphiql['font-src']).toEqual(["'self'", 'data:']);
    for (const pathname of ['/docs', '/console', '/talk']) {
      const csp = policy((await fetch(`${app.url}${pathname}`)).headers.get('content-security-policy'));
      expect(csp['style-src']).not.toContain("'unsafe-inline'");
    }
  });

  it('/talk: its one inline style by hash, and the web call socket on PUBLIC_URL', async () => {
    const res = await fetch(`${app.url}/talk`);
    const csp = policy(res.headers.get('content-security-policy'));
    const styles = [...(await res.text()).matchAll(/<style>([\s\S]*?)<\/style>/g)].map((match) => `'sha256-${createHash('sha256').update(match[1]).digest('base64')}'`);
    expect(styles).toHaveLength(1);
    expect(csp['style-src']).toEqual(["'self'", ...styles]);
    const origin = new URL(app.config.publicUrl).origin;
    expect(csp['connect-src']).toEqual(["'self'", origin, origin.replace(/^http/, 'ws')]);
    // The element's scripts are loaded by customers' pages, in CORS mode.
    expect((await fetch(`${app.url}/talk/talk.js`)).headers.get('access-control-allow-origin')).toBe('*');
  });

  it('the console: recordings, whose URLs are on PUBLIC_URL', async () => {
    const csp = policy((await fetch(`${app.url}/console`)).headers.get('content-security-policy'));
    expect(csp['media-src']).toEqual(["'self'", new URL(app.config.publicUrl).origin]);
  });

  it('the API answers carry no page policy', async () => {
    const res = await fetch(`${app.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ __typename }"}' });
    expect(res.headers.get('content-security-policy')).toBeNull();
  });
});

runInBrowser('/docs (Swagger UI) renders the REST reference with its policy refusing nothing', async () => {
  browser = await launchChromium();
  const page = await browser.newPage();
  const origin = new URL(app.url).origin;
  const refused: string[] = [];
  await page.route('**/*', (route) => {
    if (route.request().url().startsWith(origin)) return route.continue();
    refused.push(route.request().url());
    return route.abort();
  });
  const violations = await cspViolations(page);
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  const loaded = await page.goto(`${app.url}/docs`);
  expect(loaded?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
  await page.waitForSelector('.opblock', { timeout: 20_000 });
  // An operation opens, with its parameters and responses.
  await page.locator('.opblock-summary').first().click();
  await page.waitForSelector('.opblock-body', { timeout: 5_000 });
  await page.waitForTimeout(500);
  expect(refused).toEqual([]);
  expect(pageErrors).toEqual([]);
  expect(violations).toEqual([]);
});
