import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config';
import { ideAssets, wantsIde } from '../docs/ide';
import { referenceAssets } from '../docs/reference';
import { sendAsset } from '../docs/static';
import { isRead, type HttpRoute } from './route';

/**
 * The pages for people, all from the project's own assets: GraphiQL at GET /graphql for a
 * browser (and its assets under /ide/), the REST reference at /docs, the OpenAPI document,
 * and / sent to /docs.
 */
export function docsRoutes(config: Pick<Config, 'graphql'>, openApiPath: string, openApi: string): HttpRoute[] {
  const sendOpenApi = documentSender(openApi, 'application/json; charset=utf-8');
  return [
    {
      // A browser's page load; any other request to /graphql is GraphQL's.
      match: ({ method, path, search, req }) => path === '/graphql' && config.graphql.ide && wantsIde(method, req.headers.accept, search),
      label: '/graphql',
      handle: ({ res, path }) => sendAsset(res, ideAssets[path]),
    },
    {
      match: ({ method, path }) => path === '/' && isRead(method),
      label: '/',
      handle({ res }) {
        res.writeHead(302, { location: '/docs' });
        res.end();
      },
    },
    { match: ({ method, path }) => path === openApiPath && isRead(method), label: openApiPath, handle: ({ req, res }) => sendOpenApi(req, res) },
    { match: ({ method, path }) => path === '/docs' && isRead(method), label: '/docs', handle: ({ res, path }) => sendAsset(res, referenceAssets[path]) },
    { match: ({ method, path }) => path.startsWith('/docs/') && isRead(method), label: '/docs/*', handle: ({ res, path }) => sendAsset(res, referenceAssets[path]) },
    { match: ({ method, path }) => config.graphql.ide && path.startsWith('/ide/') && isRead(method), label: '/ide/*', handle: ({ res, path }) => sendAsset(res, ideAssets[path]) },
  ];
}

/**
 * A document made at start-up, with a strong ETag of its bytes: clients and Swagger ask again
 * each time (no-cache) and get a 304 until a deploy changes it, instead of a day-old copy.
 */
function documentSender(text: string, type: string): (req: IncomingMessage, res: ServerResponse) => void {
  const etag = `"${createHash('sha256').update(text).digest('base64url').slice(0, 27)}"`;
  const headers = { etag, 'cache-control': 'public, no-cache', 'x-content-type-options': 'nosniff' };
  return (req, res) => {
    if (matchesEtag(req.headers['if-none-match'], etag)) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    res.writeHead(200, { ...headers, 'content-type': type, 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
}

/** RFC 9110's If-None-Match: `*`, or a list of tags compared weakly (W/ ignored). */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
