// A typed GraphQL client in a few lines, on the types graphql-codegen generates from
// schema.graphql and operations.graphql (`npm run codegen`). CI type-checks this file.
import type {
  CreateLeadMutation,
  CreateLeadMutationVariables,
  LeadsQuery,
  LeadsQueryVariables,
} from './generated/graphql';

const LEADS = `query Leads($page: Int, $per_page: Int, $campaign_id: Int, $status: String) {
  leads(page: $page, per_page: $per_page, campaign_id: $campaign_id, status: $status) {
    data { id phone_number status campaign { id name } } current_page last_page total
  }
}`;

const CREATE_LEAD = `mutation CreateLead($input: CreateLeadInput!) {
  createLead(input: $input) { id phone_number status campaign { id name } }
}`;

interface GraphQLResponse<T> {
  data?: T | null;
  errors?: { message: string; extensions?: { code?: string; errors?: Record<string, string[]> } }[];
}

export async function request<TData, TVariables extends object>(
  baseUrl: string,
  token: string,
  query: string,
  variables: TVariables,
): Promise<TData> {
  const response = await fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  const result = (await response.json()) as GraphQLResponse<TData>;
  if (result.errors?.length) throw new Error(result.errors.map((e) => e.message).join('; '));
  return result.data as TData;
}

export async function firstPageOfPhoneNumbers(baseUrl: string, token: string, campaignId: number): Promise<string[]> {
  const data = await request<LeadsQuery, LeadsQueryVariables>(baseUrl, token, LEADS, { campaign_id: campaignId, per_page: 100 });
  return data.leads.data.map((lead) => lead.phone_number);
}

export async function addLead(baseUrl: string, token: string, campaignId: number, phone: string): Promise<number> {
  const variables: CreateLeadMutationVariables = {
    input: { campaign_id: campaignId, phone_number: phone, variables: { customer_name: 'Ana' } },
  };
  const data = await request<CreateLeadMutation, CreateLeadMutationVariables>(baseUrl, token, CREATE_LEAD, variables);
  return data.createLead.id;
}
