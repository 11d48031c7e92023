import { HeaderMap, type ApolloServer } from '@apollo/server';
import type { Config } from '../config';
import { Messages } from '../errors';
import type { GraphQLContext } from '../graphql/context';
import type { DirectPath } from '../graphql/apollo-bypass';
import { readBody, sendGraphQLError, sendJson } from '../http';
import type { Session } from '../rest/shim';
import type { Exchange, HttpRoute } from './route';

/**
 * GraphQL over HTTP at /graphql: the token is checked before the body is even read (every
 * operation needs an account), then the direct path answers what it can, and Apollo the rest.
 */
export function graphqlRoute(parts: {
  config: Pick<Config, 'maxBodyBytes'>;
  apollo: ApolloServer<GraphQLContext>;
  direct: DirectPath;
  session: (exchange: Exchange) => () => Promise<Session>;
}): HttpRoute {
  const { config, apollo, direct, session } = parts;
  return {
    match: ({ path }) => path === '/graphql',
    label: '/graphql',
    async handle(exchange) {
      const { req, res, url } = exchange;
      const { context, retryAfterSeconds } = await session(exchange)();
      if (context.accountId === null) {
        return sendJson(
          res,
          401,
          { data: null, errors: [{ message: Messages.unauthenticated, extensions: { code: 'UNAUTHENTICATED', status: 401 } }] },
          { 'www-authenticate': 'Bearer' },
        );
      }
      if (retryAfterSeconds !== null) {
        return sendGraphQLError(res, 'RATE_LIMITED', Messages.rateLimited(retryAfterSeconds), { 'retry-after': retryAfterSeconds });
      }
      let body: unknown;
      if (req.method === 'POST') {
        const raw = await readBody(req, config.maxBodyBytes);
        try {
          body = raw.length ? JSON.parse(raw.toString('utf8')) : undefined;
        } catch {
          return sendGraphQLError(res, 'BAD_REQUEST', Messages.invalidJson);
        }
      }
      if (await direct.answer(req, res, body, context)) return;
      const headers = new HeaderMap();
      for (const [name, value] of Object.entries(req.headers)) {
        if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      }
      const response = await apollo.executeHTTPGraphQLRequest({
        httpGraphQLRequest: { method: req.method ?? 'GET', headers, search: url.search, body },
        context: async () => context,
      });
      for (const [name, value] of response.headers) res.setHeader(name, value);
      // Answers about an account are never stored by a cache on the way.
      res.setHeader('cache-control', 'no-store');
      res.statusCode = response.status ?? 200;
      if (req.method === 'POST') direct.answered(req.headers.accept, res.statusCode, response.headers.get('content-type'));
      if (response.body.kind === 'complete') {
        res.end(response.body.string);
        return;
      }
      for await (const chunk of response.body.asyncIterator) res.write(chunk);
      res.end();
    },
  };
}
