// A typed GraphQL client in a few lines, on the documents graphql-codegen's client preset
// generates from schema.graphql and operations.graphql (`npm run codegen`): each document
// carries its result and variables types, so a call cannot drift from its operation. CI
// type-checks this file and runs it against a started server (tests/examples.test.ts).
import { CreateLeadDocument, LeadsDocument, type TypedDocumentString } from './generated/graphql';

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
