import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Config } from '../config';

/** The pages for people this server serves, each with the policy its code needs. */
export type Page = 'graphiql' | 'docs' | 'console' | 'talk';

/** A CSP source for one inline `<style>` element's exact text. */
export function styleHash(css: string): string {
  return `'sha256-${createHash('sha256').update(css).digest('base64')}'`;
}

/**
 * The security headers of the pages (GraphiQL, /docs, /console, /talk) and their assets, in
 * one place. Every page runs only this server's own scripts (no CDN, no inline script, no
 * eval), talks only to this server, and is framed by no one: /talk and the console hold an
 * account's token in the tab and start paid calls, so a framing site could trick a click.
 * Customers embed /talk's `<vozgate-talk>` element instead, a script loaded from their own
 * page with CORS (src/web/talk.ts), which their page's policy governs, not this one.
 *
 * What each page needs beyond that, as its code does it:
 * - GraphiQL: inline `<style>` elements, which its Radix dialogs (settings, shortcuts) inject
 *   to stop the page scrolling under them (react-remove-scroll), with no way to hand them a
 *   nonce from outside graphiql's bundle; its fonts are data: URLs in its CSS. It needs no
 *   eval, worker or blob: (its bundle's one `new Function` is webpack's fallback for a
 *   browser without globalThis).
 * - Swagger UI (/docs): icons as data: URLs.
 * - The console: recordings, whose URLs are built on PUBLIC_URL.
 * - /talk: its one inline `<style>`, by hash; the web call's socket, on PUBLIC_URL.
 *
 * PUBLIC_URL's origin is allowed beside 'self' because links are built on it (a page opened
 * at 127.0.0.1 gets a socket URL on localhost); 'self' covers ws: and wss: to the page's own
 * host (CSP 3).
 */
export function pageHeaders(page: Page, config: Pick<Config, 'publicUrl'>, inlineStyles: string[] = []): Record<string, string> {
  const publicOrigin = originOf(config.publicUrl);
  const publicSources = publicOrigin ? [publicOrigin, publicOrigin.replace(/^http/, 'ws')] : [];
  const directives: Record<string, string[]> = {
    'default-src': ["'none'"],
    'script-src': ["'self'"],
    'style-src': ["'self'", ...inlineStyles.map(styleHash)],
    'img-src': ["'self'", 'data:'],
    'font-src': ["'self'"],
    'connect-src': ["'self'"],
    'base-uri': ["'none'"],
    'form-action': ["'self'"],
    'frame-ancestors': ["'none'"],
  };
  if (page === 'graphiql') {
    // Not by hash: the injected rules hold measured sizes, and a hash would turn 'unsafe-inline' off.
    directives['style-src'] = ["'self'", "'unsafe-inline'"];
    directives['font-src'].push('data:');
  }
  if (page === 'console') directives['media-src'] = ["'self'", ...(publicOrigin ? [publicOrigin] : [])];
  if (page === 'talk') directives['connect-src'].push(...publicSources);
  return {
    'content-security-policy': Object.entries(directives)
      .map(([name, sources]) => `${name} ${sources.join(' ')}`)
      .join('; '),
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
  };
}

/** Sets a page's headers on a response about to be written. */
export function setPageHeaders(res: ServerResponse, page: Page, config: Pick<Config, 'publicUrl'>, inlineStyles?: string[]): void {
  for (const [name, value] of Object.entries(pageHeaders(page, config, inlineStyles))) res.setHeader(name, value);
}

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}
