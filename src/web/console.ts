import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config';
import { CSS, HTML, JS, sendAsset, type Asset } from '../docs/static';
import { setPageHeaders } from './page-headers';
import { isRead, type HttpRoute } from './route';

/**
 * The console (console/, a Vite + React app on the public GraphQL API) at `/console`, from the
 * files `npm run build` writes into dist/console/. Its assets have content hashes in their
 * names; every other path under /console is one of the app's own routes and answers its
 * index.html, so a reload or a shared link of /console/calls/7 opens that page.
 */
const PREFIX = '/console';

const TYPES: Record<string, string> = {
  '.js': JS,
  '.css': CSS,
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
};

/** dist/console of the project this file belongs to (src/web or dist/src/web). */
function builtDir(): string | null {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return path.join(dir, 'dist', 'console');
  }
  return null;
}

interface Built {
  index: Asset;
  /** By URL path: only the files the build wrote are served, so no path can reach outside them. */
  assets: Map<string, Asset>;
}

function readBuilt(dir: string): Built | null {
  const indexFile = path.join(dir, 'index.html');
  if (!existsSync(indexFile)) return null;
  const assets = new Map<string, Asset>();
  const walk = (relative: string) => {
    for (const entry of readdirSync(path.join(dir, relative), { withFileTypes: true })) {
      const child = path.posix.join(relative, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (TYPES[path.extname(entry.name)]) assets.set(`${PREFIX}/${child}`, { file: path.join(dir, child), type: TYPES[path.extname(entry.name)] });
    }
  };
  walk('');
  // Text, not a file: it names this build's hashed assets, so browsers check it again each time.
  return { index: { text: readFileSync(indexFile, 'utf8'), type: HTML }, assets };
}

/**
 * The built console's stylesheets, as its index.html links them (for /talk, which wears the
 * console's look); none when the console is not built. Only the build's own assets.
 */
export function consoleStylesheets(): string[] {
  const dir = builtDir();
  const indexFile = dir ? path.join(dir, 'index.html') : null;
  if (!indexFile || !existsSync(indexFile)) return [];
  const tags = readFileSync(indexFile, 'utf8').match(/<link\b[^>]*\brel="stylesheet"[^>]*>/g) ?? [];
  return tags.map((tag) => /\bhref="([^"]+)"/.exec(tag)?.[1] ?? '').filter((href) => /^\/console\/assets\/[\w.-]+\.css$/.test(href));
}

export function consoleRoute(config: Pick<Config, 'console' | 'publicUrl'>): HttpRoute {
  const dir = builtDir();
  // Read on the first request, not at start-up: tests and `npm start` build it before, and a
  // server without the console (CONSOLE=false) never reads it.
  let built: Built | null = null;
  return {
    match: ({ method, path: requested }) => config.console && (requested === PREFIX || requested.startsWith(`${PREFIX}/`)) && isRead(method),
    label: ({ path: requested }) => (requested.startsWith(`${PREFIX}/assets/`) ? `${PREFIX}/assets/*` : `${PREFIX}/*`),
    async handle({ req, res, path: requested }) {
      built ??= dir ? readBuilt(dir) : null;
      setPageHeaders(res, 'console', config);
      if (!built) {
        res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '10' });
        res.end('The console is not built: `npm run build` (or `npm start`) builds it into dist/console/.\n');
        return;
      }
      const asset = built.assets.get(requested);
      if (asset) return sendAsset(req, res, asset);
      // A missing file (an old hash after a deploy) is a 404, not the page in its place.
      if (path.extname(requested)) return sendAsset(req, res, undefined);
      return sendAsset(req, res, built.index);
    },
  };
}
