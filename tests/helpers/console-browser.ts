import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './chromium';

/** What the console's browser tests share: Debian's chromium, the built console, axe-core, screenshots. */
export { CHROMIUM, runInBrowser } from './chromium';
export const root = path.resolve(__dirname, '../..');
export const shots = path.join(root, 'test-results', 'console');

/** The console the server serves is the built one (dist/console), as `npm start` builds it. */
export function buildConsole(): void {
  execFileSync(process.execPath, [path.join(root, 'scripts/build.mjs')], { stdio: 'inherit', env: { ...process.env, CONSOLE: 'true' } });
  mkdirSync(shots, { recursive: true });
}

export function launch(): Promise<Browser> {
  return launchChromium(['--mute-audio']);
}

/** axe-core's serious and critical violations on the page as it stands, one line each. */
export async function axe(page: Page, name: string): Promise<string[]> {
  // Evaluated, not a <script> added to the page: the page's policy refuses inline scripts.
  await page.evaluate(readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
  const violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[] = await page.evaluate(async () => {
    const result = await (globalThis as any).axe.run((globalThis as any).document, { resultTypes: ['violations'] });
    return result.violations.map((v: any) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n: any) => ({ target: n.target })) }));
  });
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${name}: ${violation.id} (${violation.impact}) ${violation.help} at ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

export const screenshot = (page: Page, name: string) => page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });

/**
 * Signs in through the sign-in page, as an operator does: done when the console's navigation
 * is in the page (it opens on the analytics page; on a phone the navigation waits behind its
 * menu button).
 */
export async function signIn(page: Page, url: string, token: string): Promise<void> {
  await page.goto(`${url}/console`);
  await page.getByLabel('Token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForSelector('nav[aria-label="Console"]', { state: 'attached', timeout: 15_000 });
}
