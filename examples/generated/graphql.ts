/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
export type CreateLeadInput = {
  /** Allow a lead whose phone number the campaign already has. Default false. (Spelled as the spec spells it.) */
  allow_dupplicate?: boolean | null | undefined;
  campaign_id: number;
  /** E.164, or national in DEFAULT_PHONE_REGION. */
  phone_number: string;
  secondary_contacts?: Array<SecondaryContactInput> | null | undefined;
  /** customer_name, email, or anything else. */
  variables?: Record<string, unknown> | null | undefined;
};

export type SecondaryContactInput = {
  /** E.164, or national in DEFAULT_PHONE_REGION. */
  phone_number: string;
  /** customer_name, email, or anything else. */
  variables?: Record<string, unknown> | null | undefined;
};

/** Only the fields sent change. */
export type UpdateLeadInput = {
  /** A campaign of the account. */
  campaign_id?: number | null | undefined;
  phone_number?: string | null | undefined;
  /** One of: created, completed, reached-max-retries. created makes the lead dialable again (attempts reset); the others take it out of the dialer. */
  status?: string | null | undefined;
  /** Merged into the existing variables. */
  variables?: Record<string, unknown> | null | undefined;
};

export type LeadFieldsFragment = { id: number, campaign_id: number, phone_number: string, variables: Record<string, unknown>, status: string, created_at: string, updated_at: string, campaign: { id: number, name: string }, secondary_contacts: Array<{ id: number, phone_number: string, variables: Record<string, unknown>, status: string }> };

export type LeadsQueryVariables = Exact<{
  page?: number | null | undefined;
  per_page?: number | null | undefined;
  campaign_id?: number | null | undefined;
  status?: string | null | undefined;
}>;


export type LeadsQuery = { leads: { current_page: number, last_page: number, total: number, data: Array<{ id: number, campaign_id: number, phone_number: string, variables: Record<string, unknown>, status: string, created_at: string, updated_at: string, campaign: { id: number, name: string }, secondary_contacts: Array<{ id: number, phone_number: string, variables: Record<string, unknown>, status: string }> }> } };

export type LeadQueryVariables = Exact<{
  id: number;
}>;


export type LeadQuery = { lead: { id: number, campaign_id: number, phone_number: string, variables: Record<string, unknown>, status: string, created_at: string, updated_at: string, campaign: { id: number, name: string }, secondary_contacts: Array<{ id: number, phone_number: string, variables: Record<string, unknown>, status: string }> } };

export type CreateLeadMutationVariables = Exact<{
  input: CreateLeadInput;
}>;


export type CreateLeadMutation = { createLead: { id: number, campaign_id: number, phone_number: string, variables: Record<string, unknown>, status: string, created_at: string, updated_at: string, campaign: { id: number, name: string }, secondary_contacts: Array<{ id: number, phone_number: string, variables: Record<string, unknown>, status: string }> } };

export type UpdateLeadMutationVariables = Exact<{
  id: number;
  input: UpdateLeadInput;
}>;


export type UpdateLeadMutation = { updateLead: { id: number, status: string, variables: Record<string, unknown> } };

export type CampaignsQueryVariables = Exact<{ [key: string]: never; }>;


export type CampaignsQuery = { campaigns: Array<{ id: number, name: string }> };

export type CreateCampaignMutationVariables = Exact<{
  name: string;
}>;


export type CreateCampaignMutation = { createCampaign: { id: number, name: string } };

export type CallUpdatedSubscriptionVariables = Exact<{
  id?: number | null | undefined;
  campaign_id?: number | null | undefined;
}>;


export type CallUpdatedSubscription = { callUpdated: { id: number, status: string, campaign_id: number | null, lead_id: number | null, attempt: number | null, duration: number, total_cost: number } };

export type CampaignUpdatedSubscriptionVariables = Exact<{
  id: number;
}>;


export type CampaignUpdatedSubscription = { campaignUpdated: { id: number, status: string, paused_reason: string | null, stats: { leads: Record<string, unknown>, calls_in_progress: number, attempts: number, total_cost: number } } };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}
export const LeadFieldsFragmentDoc = new TypedDocumentString(`
    fragment LeadFields on Lead {
  id
  campaign_id
  phone_number
  variables
  status
  created_at
  updated_at
  campaign {
    id
    name
  }
  secondary_contacts {
    id
    phone_number
    variables
    status
  }
}
    `, {"fragmentName":"LeadFields"}) as unknown as TypedDocumentString<LeadFieldsFragment, unknown>;
export const LeadsDocument = new TypedDocumentString(`
    query Leads($page: Int, $per_page: Int, $campaign_id: Int, $status: String) {
  leads(
    page: $page
    per_page: $per_page
    campaign_id: $campaign_id
    status: $status
  ) {
    data {
      ...LeadFields
    }
    current_page
    last_page
    total
  }
}
    fragment LeadFields on Lead {
  id
  campaign_id
  phone_number
  variables
  status
  created_at
  updated_at
  campaign {
    id
    name
  }
  secondary_contacts {
    id
    phone_number
    variables
    status
  }
}`) as unknown as TypedDocumentString<LeadsQuery, LeadsQueryVariables>;
export const LeadDocument = new TypedDocumentString(`
    query Lead($id: Int!) {
  lead(id: $id) {
    ...LeadFields
  }
}
    fragment LeadFields on Lead {
  id
  campaign_id
  phone_number
  variables
  status
  created_at
  updated_at
  campaign {
    id
    name
  }
  secondary_contacts {
    id
    phone_number
    variables
    status
  }
}`) as unknown as TypedDocumentString<LeadQuery, LeadQueryVariables>;
export const CreateLeadDocument = new TypedDocumentString(`
    mutation CreateLead($input: CreateLeadInput!) {
  createLead(input: $input) {
    ...LeadFields
  }
}
    fragment LeadFields on Lead {
  id
  campaign_id
  phone_number
  variables
  status
  created_at
  updated_at
  campaign {
    id
    name
  }
  secondary_contacts {
    id
    phone_number
    variables
    status
  }
}`) as unknown as TypedDocumentString<CreateLeadMutation, CreateLeadMutationVariables>;
export const UpdateLeadDocument = new TypedDocumentString(`
    mutation UpdateLead($id: Int!, $input: UpdateLeadInput!) {
  updateLead(id: $id, input: $input) {
    id
    status
    variables
  }
}
    `) as unknown as TypedDocumentString<UpdateLeadMutation, UpdateLeadMutationVariables>;
export const CampaignsDocument = new TypedDocumentString(`
    query Campaigns {
  campaigns {
    id
    name
  }
}
    `) as unknown as TypedDocumentString<CampaignsQuery, CampaignsQueryVariables>;
export const CreateCampaignDocument = new TypedDocumentString(`
    mutation CreateCampaign($name: String!) {
  createCampaign(input: {name: $name}) {
    id
    name
  }
}
    `) as unknown as TypedDocumentString<CreateCampaignMutation, CreateCampaignMutationVariables>;
export const CallUpdatedDocument = new TypedDocumentString(`
    subscription CallUpdated($id: Int, $campaign_id: Int) {
  callUpdated(id: $id, campaign_id: $campaign_id) {
    id
    status
    campaign_id
    lead_id
    attempt
    duration
    total_cost
  }
}
    `) as unknown as TypedDocumentString<CallUpdatedSubscription, CallUpdatedSubscriptionVariables>;
export const CampaignUpdatedDocument = new TypedDocumentString(`
    subscription CampaignUpdated($id: Int!) {
  campaignUpdated(id: $id) {
    id
    status
    paused_reason
    stats {
      leads
      calls_in_progress
      attempts
      total_cost
    }
  }
}
    `) as unknown as TypedDocumentString<CampaignUpdatedSubscription, CampaignUpdatedSubscriptionVariables>;