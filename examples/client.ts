// A typed GraphQL client in a few lines, on the documents graphql-codegen's client preset
// generates from schema.graphql and operations.graphql (`npm run codegen`): each document
// carries its result and variables types, so a call cannot drift from its operation. CI
// type-checks this file and runs it against a started server (tests/platform/examples.test.ts).
import { createClient } from 'graphql-ws';
import { CallUpdatedDocument, CreateLeadDocument, LeadsDocument, type CallUpdatedSubscription, type TypedDocumentString } from './generated/graphql';

interface GraphQLResponse<T> {
  data?: T | null;
  errors?: { message: string; extensions?: { code?: string; errors?: Record<string, string[]> } }[];
}

/** Runs a typed document: the variables are checked, and the answer typed, by the document itself. */
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
  const result = (await response.json()) as GraphQLResponse<TResult>;
  if (result.errors?.length) throw new Error(result.errors.map((e) => e.message).join('; '));
  return result.data as TResult;
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
