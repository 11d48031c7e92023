import { createClient, type Client } from 'graphql-ws';
import type { TypedDocumentString } from '../gql/graphql';
import { coercionMessage, errorMessage, fieldMessage } from './english';
import { currentToken, signOut } from './session';

interface GraphQLErrorEntry {
  message: string;
  extensions?: { code?: string; errors?: Record<string, string[]> };
}

/**
 * A refusal of the API, in English (api/english.ts): `code` is the first error's
 * extensions.code; `fields` the messages about each input field, keyed by the field's path
 * as the API names it (`name`, `end_call_tool.description`, `schema.0.name`), from a
 * VALIDATION_FAILED's field map and from graphql-js's coercion of the variables
 * (BAD_USER_INPUT), each message once, for a form to show beside its field; `message` the
 * sentence for the whole refusal; `apiMessage` the API's own words.
 */
export class ApiError extends Error {
  readonly code: string | undefined;
  readonly fields: Record<string, string[]>;
  readonly apiMessage: string;
  constructor(errors: GraphQLErrorEntry[], fallback: string) {
    const code = errors[0]?.extensions?.code;
    const fields: Record<string, Set<string>> = {};
    const add = (field: string, message: string) => (fields[field] ??= new Set()).add(message);
    const others: string[] = [];
    for (const error of errors) {
      const map = error.extensions?.errors;
      const coerced = coercion(error.message);
      if (map) {
        for (const [name, messages] of Object.entries(map)) for (const message of messages) add(name.replace(/^input\./, ''), fieldMessage(name.replace(/^input\./, ''), message));
        // A refusal whose own sentence says more than "validation failed" (a web call's missing keys) keeps it, for a page with no such field.
        const sentence = errorMessage(error.extensions?.code, error.message);
        if (sentence !== errorMessage(error.extensions?.code, '')) others.push(sentence);
      } else if (coerced) add(coerced.field, coercionMessage(coerced.field, coerced.detail));
      else others.push(errorMessage(error.extensions?.code, error.message));
    }
    const named = Object.keys(fields).length > 0;
    super([...new Set(others)].join(' ') || (named ? errorMessage('VALIDATION_FAILED', '') : fallback));
    this.name = 'ApiError';
    this.code = code;
    this.apiMessage = errors.map((error) => error.message).join('; ') || fallback;
    this.fields = Object.fromEntries(Object.entries(fields).map(([name, messages]) => [name, [...messages]]));
  }
}

/**
 * The field a graphql-js coercion error names: `Variable "$input" got invalid value ... at
 * "input.schema[0]"; Field "name" of required type "String!" was not provided.` is about
 * schema.0.name. The path starts with the variable's own name, which is left out (a
 * top-level argument such as $id keeps it).
 */
function coercion(message: string): { field: string; detail: string } | null {
  const match = /^Variable "\$(\w+)" got invalid value [\s\S]*?(?: at "([^"]*)")?; ([^;]*)$/.exec(message);
  if (!match) return null;
  const [, variable, at, detail] = match;
  const path = (at ?? variable).replace(/\[(\d+)\]/g, '.$1').split('.');
  if (path[0] === variable && path.length > 1) path.shift();
  const named = /^Field "(\w+)" (?:of required type|is not defined)/.exec(detail);
  if (named) path.push(named[1]);
  if (path[0] === variable && path.length > 1) path.shift();
  return { field: path.join('.'), detail };
}

/** Runs a query or mutation over HTTP with the session's token; its types come from the document. */
export async function request<TResult, TVariables>(document: TypedDocumentString<TResult, TVariables>, variables?: TVariables): Promise<TResult> {
  const token = currentToken();
  let response: Response;
  try {
    response = await fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ query: document.toString(), variables: variables ?? {} }),
    });
  } catch {
    throw new ApiError([], 'The server cannot be reached. Check your connection and try again.');
  }
  const result = (await response.json().catch(() => ({}))) as { data?: TResult | null; errors?: GraphQLErrorEntry[] };
  if (result.errors?.length || !result.data) {
    const error = new ApiError(result.errors ?? [], `The server answered ${response.status}.`);
    // A token revoked or mistyped: back to the sign-in page, which says why.
    if (error.code === 'UNAUTHENTICATED') {
      lastSignOutReason = error.message;
      signOut();
    }
    throw error;
  }
  return result.data;
}

/** Why the session last ended on its own (shown on the sign-in page). */
export let lastSignOutReason: string | null = null;

let socket: { token: string; client: Client } | null = null;

/**
 * One graphql-ws connection for the whole page (each subscription a stream on it), made for
 * the session's token; a new token makes a new one. graphql-ws reconnects by itself after a
 * network drop, and gives up at once on the server's 4401 (a bad token).
 */
function wsClient(token: string): Client {
  if (socket?.token === token) return socket.client;
  void socket?.client.dispose();
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`;
  const client = createClient({
    url,
    connectionParams: { Authorization: `Bearer ${token}` },
    lazy: true,
    retryAttempts: Infinity,
    shouldRetry: (event) => !(event && typeof event === 'object' && 'code' in event && (event as CloseEvent).code === 4401),
  });
  socket = { token, client };
  return client;
}

/** Follows a subscription; answers how to stop. */
export function subscribe<TResult, TVariables>(
  document: TypedDocumentString<TResult, TVariables>,
  variables: TVariables,
  onData: (data: TResult) => void,
  onError?: (error: ApiError) => void,
): () => void {
  const token = currentToken();
  if (!token) return () => {};
  return wsClient(token).subscribe<TResult>(
    { query: document.toString(), variables: variables as Record<string, unknown> },
    {
      next: (result) => {
        if (result.data) onData(result.data as TResult);
        else if (result.errors?.length) onError?.(new ApiError(result.errors as GraphQLErrorEntry[], 'The live updates failed.'));
      },
      error: (error) => {
        const errors = Array.isArray(error) ? (error as GraphQLErrorEntry[]) : [];
        onError?.(new ApiError(errors, 'Live updates stopped: the connection to the server closed.'));
      },
      complete: () => {},
    },
  );
}
