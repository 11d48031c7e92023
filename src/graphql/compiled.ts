import type { ApolloServerOptionsWithGateway, BaseContext } from '@apollo/server';
import { GraphQLError, execute, printSchema, type DocumentNode, type ExecutionResult, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { GraphQLCompile } from '../config';
import { operationResolutionErrors } from './operation-resolution';

/** Not compiled (yet): run once so far, or not something graphql-jit runs. */
type Uncompiled = 'ran-once' | 'graphql-js';

/**
 * Runs operations as graphql-jit compiles them: a function per operation, written for its
 * selection, that calls the same resolvers and scalars as graphql-js and answers the same
 * result. graphql-js works each field out again on every object of every request, and answers
 * objects without a prototype, which `JSON.stringify` reads slowly: on a page of 100 leads,
 * that was a third of the process's time.
 *
 * Apollo and the REST shim hand back the same `DocumentNode` for the same text, so compiled
 * operations are kept by document, as long as the document is. With `repeated`, a document is
 * compiled the second time it runs: one sent once (an ad hoc query, or an attempt to fill the
 * cache) runs on graphql-js and costs no compilation. Subscriptions, and any document
 * graphql-jit cannot compile, always run on graphql-js.
 */
export class OperationRunner {
  private readonly operations = new WeakMap<DocumentNode, Map<string, CompiledQuery | Uncompiled>>();

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly mode: GraphQLCompile,
  ) {}

  async run(
    document: DocumentNode,
    operationName: string | null | undefined,
    variables: Record<string, unknown> | null | undefined,
    context: object,
  ): Promise<ExecutionResult> {
    const compiled = this.compiled(document, operationName ?? null);
    if (compiled) {
      const result = await compiled.query(undefined, context, variables);
      // No `data` at all: the variables were refused before any resolver ran. graphql-js
      // words that refusal the way Apollo recognises as the client's error (a 400).
      if ('data' in result) return result.errors ? { ...result, errors: result.errors.map(asGraphQLJsError) } : result;
    }
    return execute({ schema: this.schema, document, operationName, variableValues: variables, contextValue: context });
  }

  private compiled(document: DocumentNode, operationName: string | null): CompiledQuery | null {
    if (this.mode === 'never') return null;
    let byName = this.operations.get(document);
    if (!byName) this.operations.set(document, (byName = new Map()));
    const key = operationName ?? '';
    const known = byName.get(key);
    if (known === 'graphql-js') return null;
    if (known !== undefined && known !== 'ran-once') return known;
    if (known === undefined && this.mode === 'repeated') {
      byName.set(key, 'ran-once');
      return null;
    }
    const compiled = compile(this.schema, document, operationName);
    byName.set(key, compiled ?? 'graphql-js');
    return compiled;
  }
}

function compile(schema: GraphQLSchema, document: DocumentNode, operationName: string | null): CompiledQuery | null {
  const operation = document.definitions.find(
    (definition) => definition.kind === 'OperationDefinition' && (operationName === null || definition.name?.value === operationName),
  );
  if (!operation || operation.kind !== 'OperationDefinition' || operation.operation === 'subscription') return null;
  const compiled = compileQuery(schema, document, operationName ?? undefined);
  return isCompiledQuery(compiled) ? compiled : null;
}

/**
 * graphql-jit's error as graphql-js makes it: the same message, locations, path and original
 * error, and `extensions` always an object (graphql-jit leaves it undefined when the original
 * error has none, and Apollo's error formatting reads a code from it).
 */
function asGraphQLJsError(error: GraphQLError): GraphQLError {
  const copy = new GraphQLError(error.message, { path: error.path, originalError: error.originalError, extensions: error.extensions });
  return Object.assign(copy, { locations: error.locations });
}

const RAN_AHEAD = Symbol('the operation, run before Apollo saw the request');

/** A context that may carry an operation's result, run before Apollo saw the request. */
type RanAhead = { [RAN_AHEAD]?: Promise<ExecutionResult> };

/**
 * Leaves an operation's result (or failure) on a request's context, for Apollo's executor to
 * answer instead of running the operation again. Apollo's copy of the context (Object.assign)
 * carries it.
 */
export function runAhead(context: object, result: Promise<ExecutionResult>): void {
  (context as RanAhead)[RAN_AHEAD] = result;
}

/**
 * Told of every operation Apollo runs: the request's text and operation name, the document
 * Apollo accepted for that text, and the operation of it that the request names.
 */
export type AcceptedOperation = (query: string, operationName: string | undefined, document: DocumentNode, operation: OperationDefinitionNode) => void;

/**
 * The schema for Apollo Server, with its operations run by `runner`. Apollo's one way to run
 * operations other than on graphql-js is its gateway interface (a published interface,
 * `@apollo/server-gateway-interface`): Apollo still parses, validates and caches documents,
 * runs the plugins and formats errors; the gateway only executes.
 */
export function compiledGateway<TContext extends BaseContext>(
  schema: GraphQLSchema,
  runner: OperationRunner,
  accepted: AcceptedOperation = () => {},
): ApolloServerOptionsWithGateway<TContext>['gateway'] {
  return {
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: printSchema(schema) });
      return () => {};
    },
    async load() {
      return {
        executor: (request) => {
          const { source, document, operation, context } = request;
          // Apollo calls a gateway even when no operation of the document could be chosen (its
          // type says otherwise): graphql-js's refusal, for the name the request gave, is what
          // Apollo answers 400 on graphql-js.
          if (!operation) return Promise.resolve({ errors: operationResolutionErrors(schema, document, request.request.operationName) });
          accepted(source, request.request.operationName, document, operation);
          const ahead = (context as RanAhead)[RAN_AHEAD];
          return ahead ?? runner.run(document, request.operationName, request.request.variables, context);
        },
      };
    },
    async stop() {},
  };
}
