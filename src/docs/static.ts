import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { sendError } from '../http';
import { Messages } from '../errors';

export interface Asset {
  /** A file (read from disk on each request), or text made at start-up. */
  file?: string;
  text?: string;
  type: string;
}

/**
 * Serves a page's assets from the project's own files (npm packages installed with it), so
 * that the page works with no network beyond this server. Long-cached: the files change only
 * with a new install.
 */
export async function sendAsset(res: ServerResponse, asset: Asset | undefined): Promise<void> {
  if (!asset) return sendError(res, 'NOT_FOUND', Messages.routeNotFound);
  const headers = { 'content-type': asset.type, 'cache-control': 'public, max-age=86400', 'x-content-type-options': 'nosniff' };
  if (asset.text !== undefined) {
    res.writeHead(200, { ...headers, 'content-length': Buffer.byteLength(asset.text) });
    res.end(asset.text);
    return;
  }
  const { size } = await stat(asset.file!);
  res.writeHead(200, { ...headers, 'content-length': size });
  createReadStream(asset.file!).pipe(res);
}

export const HTML = 'text/html; charset=utf-8';
export const JS = 'text/javascript; charset=utf-8';
export const CSS = 'text/css; charset=utf-8';
