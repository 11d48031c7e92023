import { execute, type DocumentNode, type GraphQLError, type GraphQLSchema } from 'graphql';

/**
 * graphql-js's own words for a document whose operation cannot be chosen: several operations
 * and no operationName (`Must provide operation name ...`), or a name the document does not
 * have (`Unknown operation named "X".`). The GraphQL spec makes both the client's request
 * error; Apollo Server answers them 400 OPERATION_RESOLUTION_FAILURE when graphql-js runs the
 * document, and the compiled path and the socket say the same. graphql-js resolves the
 * operation before anything runs, so no resolver is called here.
 */
export function operationResolutionErrors(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined): readonly GraphQLError[] {
  const result = execute({ schema, document, operationName });
  if ('then' in result || !result.errors?.length) throw new Error('operationResolutionErrors: the document has an operation of that name');
  return result.errors;
}
