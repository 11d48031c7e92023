import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled } from '@apollo/server/plugin/disabled';
import { GraphQLError, type GraphQLSchema } from 'graphql';
import type { Config } from '../config';
import { Messages } from '../errors';
import type { DirectPath } from '../graphql/apollo-bypass';
import { compiledGateway, type OperationRunner } from '../graphql/compiled';
import type { GraphQLContext } from '../graphql/context';
import { formatError } from '../graphql/errors';
import type { armor } from '../graphql/limits';
import { graphqlOperations } from '../metrics';

/**
 * Apollo Server behind /graphql (started): it executes through the shared operation runner,
 * tells the direct path which documents it accepted, counts operations, and logs unexpected
 * errors once through `logUnexpected`.
 */
export async function startApollo(parts: {
  config: Pick<Config, 'graphql'>;
  schema: GraphQLSchema;
  protections: ReturnType<typeof armor>;
  operations: OperationRunner;
  direct: DirectPath;
  logUnexpected: (errors: readonly unknown[], requestId: string | undefined) => void;
}): Promise<ApolloServer<GraphQLContext>> {
  const { config, schema, protections, operations, direct, logUnexpected } = parts;
  const apollo = new ApolloServer<GraphQLContext>({
    gateway: compiledGateway(schema, operations, (...accepted) => direct.accept(...accepted)),
    ...protections,
    plugins: [
      ...protections.plugins,
      // The schema sets no cache hints, so the cache-control plugin would only wrap every
      // field's resolver to compute "no-store" (web/graphql.ts sets it, for every answer).
      ApolloServerPluginCacheControlDisabled(),
      {
        async requestDidStart() {
          return {
            // Subscriptions are served over WebSocket (graphql-ws), not over HTTP.
            async didResolveOperation({ operation }) {
              if (operation?.operation === 'subscription') {
                throw new GraphQLError(Messages.subscriptionsOverWebSocket, { extensions: { code: 'BAD_REQUEST', http: { status: 400 } } });
              }
            },
            async didEncounterErrors({ errors, contextValue }) {
              logUnexpected(errors, contextValue?.requestId);
            },
            async willSendResponse({ operation, response }) {
              const failed = response.body.kind === 'single' && (response.body.singleResult.errors?.length ?? 0) > 0;
              graphqlOperations.inc({ type: operation?.operation ?? 'unknown', outcome: failed ? 'error' : 'ok' });
            },
          };
        },
      },
    ],
    introspection: config.graphql.introspection,
    // Apollo's CSRF check lets a request through when it carries a header no browser sends
    // cross-site without a preflight. Every operation here needs the Authorization header
    // (requests without a valid token are answered before Apollo sees them), which is such
    // a header: so GET /graphql with only Authorization works, and CSRF stays impossible.
    csrfPrevention: { requestHeaders: ['authorization', 'x-apollo-operation-name', 'apollo-require-preflight'] },
    parseOptions: { maxTokens: config.graphql.maxTokens },
    includeStacktraceInErrorResponses: false,
    // main.ts and worker.ts stop everything in order on SIGINT/SIGTERM; Apollo must not race them.
    stopOnTerminationSignals: false,
    formatError,
  });
  await apollo.start();
  return apollo;
}
