import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config';
import { ideAssets, wantsIde } from '../docs/ide';
import { referenceAssets } from '../docs/reference';
import { faviconAsset } from '../docs/favicon';
import { sendAsset, type Asset } from '../docs/static';
import { setPageHeaders } from './page-headers';
import { isRead, type HttpRoute } from './route';

/**
 * The pages for people, all from the project's own assets: GraphiQL at GET /graphql for a
 * browser (and its assets under /ide/), the REST reference at /docs, the OpenAPI document,
 * the icon, and / sent to /docs. The pages and their assets carry their policies (page-headers.ts).
 */
export function docsRoutes(config: Pick<Config, 'graphql' | 'publicUrl'>, openApiPath: string, openApi: string): HttpRoute[] {
  const openApiAsset: Asset = { text: openApi, type: 'application/json; charset=utf-8' };
  const reference = (req: IncomingMessage, res: ServerResponse, path: string) => {
    setPageHeaders(res, 'docs', config);
    return sendAsset(req, res, referenceAssets[path]);
  };
  return [
    {
      // A browser's page load; any other request to /graphql is GraphQL's.
      match: ({ method, path, search, req }) => path === '/graphql' && config.graphql.ide && wantsIde(method, req.headers.accept, search),
      label: '/graphql',
      handle: ({ req, res, path }) => {
        setPageHeaders(res, 'graphiql', config);
        return sendAsset(req, res, ideAssets[path]);
      },
    },
    {
      match: ({ method, path }) => path === '/' && isRead(method),
      label: '/',
      handle({ res }) {
        res.writeHead(302, { location: '/docs' });
        res.end();
      },
    },
    { match: ({ method, path }) => path === openApiPath && isRead(method), label: openApiPath, handle: ({ req, res }) => sendAsset(req, res, openApiAsset) },
    { match: ({ method, path }) => path === '/docs' && isRead(method), label: '/docs', handle: ({ req, res, path }) => reference(req, res, path) },
    { match: ({ method, path }) => path.startsWith('/docs/') && isRead(method), label: '/docs/*', handle: ({ req, res, path }) => reference(req, res, path) },
    { match: ({ method, path }) => path === '/favicon.ico' && isRead(method), label: '/favicon.ico', handle: ({ req, res }) => sendAsset(req, res, faviconAsset) },
    {
      match: ({ method, path }) => config.graphql.ide && path.startsWith('/ide/') && isRead(method),
      label: '/ide/*',
      handle: ({ req, res, path }) => {
        setPageHeaders(res, 'graphiql', config);
        return sendAsset(req, res, ideAssets[path]);
      },
    },
  ];
}
