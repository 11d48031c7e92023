import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { sendError } from '../http';
import { Messages } from '../errors';

export interface Asset {
  /** A file of an installed package, read once. */
  file?: string;
  /** Text made at start-up (a page, a script, a document): it changes with a deploy. */
  text?: string;
  /** Bytes kept in the source (the icon). */
  bytes?: Buffer;
  type: string;
}

/** One encoding of an asset, with its own strong ETag (RFC 9110: a tag names one representation). */
interface Representation {
  body: Buffer;
  etag: string;
  encoding?: 'br' | 'gzip';
}

interface Prepared {
  identity: Representation;
  /** Absent when compressing does not pay (small, or not text). */
  br?: Representation;
  gzip?: Representation;
}

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/** Text compresses; images and fonts are compressed already. */
const COMPRESSIBLE = /^(text\/|application\/(json|javascript)|image\/svg\+xml)/;
/** Below this, the headers cost more than compression saves. */
const MIN_COMPRESSED_BYTES = 1024;

const prepared = new WeakMap<Asset, Promise<Prepared>>();

/**
 * An asset's bytes and their gzip and brotli forms, made once, on first use (graphiql's 3.5 MB
 * bundle takes a quarter of a second in zlib's threads, and goes out as 0.6 MB). Brotli at
 * quality 9: quality 11 saves another tenth for thirty times the time.
 */
function prepare(asset: Asset): Promise<Prepared> {
  let made = prepared.get(asset);
  if (!made) {
    made = (async () => {
      const body = asset.bytes ?? (asset.text !== undefined ? Buffer.from(asset.text) : await readFile(asset.file!));
      const tag = createHash('sha256').update(body).digest('base64url').slice(0, 27);
      const result: Prepared = { identity: { body, etag: `"${tag}"` } };
      if (!COMPRESSIBLE.test(asset.type) || body.length < MIN_COMPRESSED_BYTES) return result;
      const [br, gz] = await Promise.all([
        brotli(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }),
        gzipped(body, { level: 9 }),
      ]);
      if (br.length < body.length) result.br = { body: br, etag: `"${tag}-br"`, encoding: 'br' };
      if (gz.length < body.length) result.gzip = { body: gz, etag: `"${tag}-gzip"`, encoding: 'gzip' };
      return result;
    })();
    // A failure (a file gone) is not kept: the next request tries again.
    made.catch(() => prepared.delete(asset));
    prepared.set(asset, made);
  }
  return made;
}

/** The weight Accept-Encoding gives a coding (RFC 9110 12.5.3): its own q, else `*`'s, else 0. */
export function codingWeight(header: string | undefined, coding: string): number {
  let wildcard = 0;
  for (const part of (header ?? '').split(',')) {
    const [name, ...params] = part.split(';').map((piece) => piece.trim().toLowerCase());
    const q = params.find((param) => param.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    const value = Number.isFinite(weight) ? weight : 0;
    if (name === coding) return value;
    if (name === '*') wildcard = value;
  }
  return wildcard;
}

/** The representation to send: the better-weighted of brotli and gzip (brotli on a tie), else the bytes as they are. */
function choose(forms: Prepared, acceptEncoding: string | undefined): Representation {
  const br = forms.br ? codingWeight(acceptEncoding, 'br') : 0;
  const gz = forms.gzip ? codingWeight(acceptEncoding, 'gzip') : 0;
  if (br > 0 && br >= gz) return forms.br!;
  if (gz > 0) return forms.gzip!;
  return forms.identity;
}

/** RFC 9110's If-None-Match: `*`, or a list of tags compared weakly (W/ ignored). */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/**
 * Serves a page's assets from the project's own files (npm packages installed with it), so
 * that the page works with no network beyond this server. Text goes out compressed as the
 * request's Accept-Encoding allows, with an ETag per encoding (a request that has it gets a
 * 304). Package files and the icon change only with a new install: cached a day. What is made
 * at start-up changes with a deploy: caches check again (no-cache) and mostly get a 304.
 */
export async function sendAsset(req: IncomingMessage, res: ServerResponse, asset: Asset | undefined): Promise<void> {
  if (!asset) return sendError(res, 'NOT_FOUND', Messages.routeNotFound);
  const forms = await prepare(asset);
  const chosen = choose(forms, req.headers['accept-encoding']);
  const headers: Record<string, string | number> = {
    'cache-control': asset.text !== undefined ? 'public, no-cache' : 'public, max-age=86400',
    etag: chosen.etag,
    'x-content-type-options': 'nosniff',
  };
  if (forms.br || forms.gzip) headers.vary = 'Accept-Encoding';
  if (matchesEtag(req.headers['if-none-match'], chosen.etag)) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  if (chosen.encoding) headers['content-encoding'] = chosen.encoding;
  res.writeHead(200, { ...headers, 'content-type': asset.type, 'content-length': chosen.body.length });
  res.end(chosen.body);
}

export const HTML = 'text/html; charset=utf-8';
export const JS = 'text/javascript; charset=utf-8';
export const CSS = 'text/css; charset=utf-8';
