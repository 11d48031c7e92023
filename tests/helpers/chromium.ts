import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

/**
 * Debian's chromium for the pages' tests (GraphiQL, /talk, the console), driven by
 * playwright-core. Without it a browser test is skipped, except under CI=true, where it fails
 * (.ci/run installs the package).
 */
export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((file) => existsSync(file));
export const runInBrowser = CHROMIUM || process.env.CI ? it : it.skip;

/**
 * Headless, as root, with nothing that reaches out on its own: this machine's closed network
 * refuses Chromium's background connections, many at a time. `args` add to these.
 */
export function launchChromium(args: string[] = []): Promise<Browser> {
  if (!CHROMIUM) throw new Error('CI=true but no chromium: .ci/run installs the Debian package');
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', ...args],
  });
}

/**
 * The Content-Security-Policy violations a page reports from now on (its `securitypolicyviolation`
 * events, in every document the page loads), one line each: a test asserts there are none.
 */
export async function cspViolations(page: Page): Promise<string[]> {
  const seen: string[] = [];
  await page.exposeBinding('vozgateCspViolation', (_source, line: string) => void seen.push(line));
  await page.addInitScript(() => {
    (globalThis as any).document.addEventListener('securitypolicyviolation', (event: any) =>
      (globalThis as any).vozgateCspViolation(`${event.effectiveDirective} refused ${event.blockedURI || 'inline'} at ${event.sourceFile || event.documentURI}:${event.lineNumber}`),
    );
  });
  return seen;
}
