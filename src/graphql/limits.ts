import { ApolloArmor } from '@escape.tech/graphql-armor';
import type { Config } from '../config';

/**
 * The limits every operation is checked against before any resolver runs, over HTTP and
 * over WebSocket alike: depth, cost, aliases and directives (tokens are limited by the
 * parser itself, so that a refused parse is a 400); batched requests are refused and field
 * suggestions never leak the schema.
 */
export function armor(config: Config) {
  return new ApolloArmor({
    maxDepth: { n: config.graphql.maxDepth },
    costLimit: { maxCost: config.graphql.maxCost },
    maxAliases: { n: config.graphql.maxAliases },
    maxTokens: { enabled: false },
    maxDirectives: { n: config.graphql.maxDirectives },
    blockFieldSuggestion: { enabled: true },
  }).protect();
}
