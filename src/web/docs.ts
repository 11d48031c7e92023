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
    { match: ({ method, path }) => path === openApiPath && isRead(method), label: openApiPath, handle: ({ res }) => sendAsset(res, { text: openApi, type: 'application/json; charset=utf-8' }) },
    { match: ({ method, path }) => path === '/docs' && isRead(method), label: '/docs', handle: ({ res, path }) => sendAsset(res, referenceAssets[path]) },
    { match: ({ method, path }) => path.startsWith('/docs/') && isRead(method), label: '/docs/*', handle: ({ res, path }) => sendAsset(res, referenceAssets[path]) },
    { match: ({ method, path }) => config.graphql.ide && path.startsWith('/ide/') && isRead(method), label: '/ide/*', handle: ({ res, path }) => sendAsset(res, ideAssets[path]) },
  ];
}
