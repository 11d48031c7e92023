import type { GraphQLFormattedError } from 'graphql';
import { unwrapResolverError } from '@apollo/server/errors';
import { isDatabaseUnavailable } from '../db/availability';
import { DomainError, Messages } from '../errors';

/** Codes Apollo itself gives to a malformed request: safe to show as they are. */
export const REQUEST_ERROR_CODES = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'BAD_REQUEST',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
  'OPERATION_RESOLUTION_FAILURE',
]);

/** Whether an error is neither a domain error nor a malformed request: a bug or an outage. */
export function isUnexpected(error: unknown): boolean {
  const original = unwrapResolverError(error);
  if (original instanceof DomainError || isDatabaseUnavailable(original)) return false;
  const code = (error as { extensions?: { code?: unknown } })?.extensions?.code;
  return !(typeof code === 'string' && REQUEST_ERROR_CODES.has(code));
}

/**
 * Domain errors keep their Portuguese message, code, HTTP status and field map; request
 * errors pass; anything else is masked, so no stack trace or SQL reaches a client (the
 * caller logs it, with the request's id).
 */
export function formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const original = unwrapResolverError(error);
  if (original instanceof DomainError) {
    return {
      message: original.message,
      locations: formatted.locations,
      path: formatted.path,
      extensions: {
        code: original.code,
        status: original.status,
        ...(original.errors ? { errors: original.errors } : {}),
        ...(original.details ? { details: original.details } : {}),
      },
    };
  }
  if (isDatabaseUnavailable(original)) {
    return { message: Messages.unavailable, locations: formatted.locations, path: formatted.path, extensions: { code: 'UNAVAILABLE', status: 503 } };
  }
  const code = formatted.extensions?.code;
  if (typeof code === 'string' && REQUEST_ERROR_CODES.has(code)) {
    // Apollo answers these with HTTP 400, and the status a client reads must be that one.
    return { ...formatted, extensions: { code, status: 400 } };
  }
  return { message: Messages.internal, locations: formatted.locations, path: formatted.path, extensions: { code: 'INTERNAL', status: 500 } };
}
