import { createClient, type Client } from 'graphql-ws';
import type { TypedDocumentString } from '../gql/graphql';
import { currentToken, signOut } from './session';

interface GraphQLErrorEntry {
  message: string;
  extensions?: { code?: string; errors?: Record<string, string[]> };
}

/**
 * A refusal of the API: `code` is the first error's extensions.code, `fields` the per-field
 * messages of a VALIDATION_FAILED (keyed by the input's field name), for a form to show each
 * beside its field; `message` is the API's own text.
 */
export class ApiError extends Error {
  readonly code: string | undefined;
  readonly fields: Record<string, string[]>;
  constructor(errors: GraphQLErrorEntry[], fallback: string) {
    super(errors.map((error) => error.message).join('; ') || fallback);
    this.name = 'ApiError';
    this.code = errors[0]?.extensions?.code;
    const fields: Record<string, string[]> = {};
    for (const error of errors) {
      for (const [name, messages] of Object.entries(error.extensions?.errors ?? {})) fields[name.replace(/^input\./, '')] = messages;
    }
    this.fields = fields;
  }
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
