// A typed GraphQL client in a few lines, on the documents graphql-codegen's client preset
// generates from schema.graphql and operations.graphql (`npm run codegen`): each document
// carries its result and variables types, so a call cannot drift from its operation. CI
// type-checks this file and runs it against a started server (tests/platform/examples.test.ts).
//
// In a project of your own (examples/README.md): `npm i graphql-ws` and
// `npm i -D @graphql-codegen/cli @graphql-codegen/client-preset @graphql-typed-document-node/core`;
// the generated graphql.ts imports its types from the last one, which the preset does not install.
import { createClient } from 'graphql-ws';
import { CallUpdatedDocument, CreateLeadDocument, LeadsDocument, type CallUpdatedSubscription, type TypedDocumentString } from './generated/graphql';

interface GraphQLErrorEntry {
  message: string;
  extensions?: { code?: string; status?: number; errors?: Record<string, string[]> };
}

interface GraphQLResponse<T> {
  data?: T | null;
  errors?: GraphQLErrorEntry[];
}

/**
 * A request the server refused: `code` is the first error's `extensions.code`
 * (`VALIDATION_FAILED`, `NOT_FOUND`, `UNAUTHENTICATED`, ...), `errors` the field messages of a
 * validation failure (`{ phone_number: ['Número de telefone inválido'] }`), so that a form can
 * show each beside its field; `graphQLErrors` has every error as sent.
 */
export class GraphQLRequestError extends Error {
  readonly code: string | undefined;
  readonly errors: Record<string, string[]>;
  constructor(
    readonly status: number,
    readonly graphQLErrors: GraphQLErrorEntry[],
  ) {
    super(graphQLErrors.map((e) => e.message).join('; ') || `HTTP ${status}`);
    this.name = 'GraphQLRequestError';
    this.code = graphQLErrors[0]?.extensions?.code;
    this.errors = Object.assign({}, ...graphQLErrors.map((e) => e.extensions?.errors ?? {}));
  }
}

/**
 * Runs a typed document: the variables are checked, and the answer typed, by the document
 * itself. A refusal throws a GraphQLRequestError.
 */
export async function execute<TResult, TVariables>(
  baseUrl: string,
  token: string,
  document: TypedDocumentString<TResult, TVariables>,
  variables: TVariables,
): Promise<TResult> {
  const response = await fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: document.toString(), variables }),
  });
  // A proxy's error page is not JSON: it is still a refusal, with the HTTP status.
  const result = (await response.json().catch(() => ({}))) as GraphQLResponse<TResult>;
  if (result.errors?.length || !result.data) throw new GraphQLRequestError(response.status, result.errors ?? []);
  return result.data;
}

export async function firstPageOfPhoneNumbers(baseUrl: string, token: string, campaignId: number): Promise<string[]> {
  const data = await execute(baseUrl, token, LeadsDocument, { campaign_id: campaignId, per_page: 100 });
  return data.leads.data.map((lead) => lead.phone_number);
}

export async function addLead(baseUrl: string, token: string, campaignId: number, phone: string): Promise<number> {
  const data = await execute(baseUrl, token, CreateLeadDocument, {
    input: { campaign_id: campaignId, phone_number: phone, variables: { customer_name: 'Ana' } },
  });
  return data.createLead.id;
}

/**
 * Follows a typed subscription over graphql-ws on the same URL (ws:// or wss://), the token
 * in connectionParams; answers how to stop. A browser has WebSocket built in; elsewhere pass
 * an implementation (the `ws` package).
 */
export function follow<TResult, TVariables>(
  baseUrl: string,
  token: string,
  document: TypedDocumentString<TResult, TVariables>,
  variables: TVariables,
  onData: (data: TResult) => void,
  webSocketImpl?: unknown,
): () => Promise<void> {
  const client = createClient({ url: `${baseUrl.replace(/^http/, 'ws')}/graphql`, connectionParams: { Authorization: `Bearer ${token}` }, webSocketImpl });
  const stop = client.subscribe<TResult>(
    { query: document.toString(), variables: variables as Record<string, unknown> },
    { next: (result) => result.data && onData(result.data), error: (error) => console.error(error), complete: () => {} },
  );
  return async () => {
    stop();
    await client.dispose();
  };
}

/** The account's calls as their statuses change (all of them, or one call's, or one campaign's). */
export function followCalls(
  baseUrl: string,
  token: string,
  filter: { id?: number; campaign_id?: number },
  onCall: (call: CallUpdatedSubscription['callUpdated']) => void,
  webSocketImpl?: unknown,
) {
  return follow(baseUrl, token, CallUpdatedDocument, filter, (data) => onCall(data.callUpdated), webSocketImpl);
}
