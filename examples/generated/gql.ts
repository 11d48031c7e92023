/* eslint-disable */
import * as types from './graphql';



/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "fragment LeadFields on Lead {\n  id\n  campaign_id\n  phone_number\n  variables\n  status\n  created_at\n  updated_at\n  campaign {\n    id\n    name\n  }\n  secondary_contacts {\n    id\n    phone_number\n    variables\n    status\n  }\n}\n\nquery Leads($page: Int, $per_page: Int, $campaign_id: Int, $status: String) {\n  leads(\n    page: $page\n    per_page: $per_page\n    campaign_id: $campaign_id\n    status: $status\n  ) {\n    data {\n      ...LeadFields\n    }\n    current_page\n    last_page\n    total\n  }\n}\n\nquery Lead($id: Int!) {\n  lead(id: $id) {\n    ...LeadFields\n  }\n}\n\nmutation CreateLead($input: CreateLeadInput!) {\n  createLead(input: $input) {\n    ...LeadFields\n  }\n}\n\nmutation UpdateLead($id: Int!, $input: UpdateLeadInput!) {\n  updateLead(id: $id, input: $input) {\n    id\n    status\n    variables\n  }\n}\n\nquery Campaigns {\n  campaigns {\n    id\n    name\n  }\n}\n\nmutation CreateCampaign($name: String!) {\n  createCampaign(input: {name: $name}) {\n    id\n    name\n  }\n}\n\nsubscription CallUpdated($id: Int, $campaign_id: Int) {\n  callUpdated(id: $id, campaign_id: $campaign_id) {\n    id\n    status\n    campaign_id\n    lead_id\n    attempt\n    duration\n    total_cost\n  }\n}\n\nsubscription CampaignUpdated($id: Int!) {\n  campaignUpdated(id: $id) {\n    id\n    status\n    paused_reason\n    stats {\n      leads\n      calls_in_progress\n      attempts\n      total_cost\n    }\n  }\n}": typeof types.LeadFieldsFragmentDoc,
};
const documents: Documents = {
    "fragment LeadFields on Lead {\n  id\n  campaign_id\n  phone_number\n  variables\n  status\n  created_at\n  updated_at\n  campaign {\n    id\n    name\n  }\n  secondary_contacts {\n    id\n    phone_number\n    variables\n    status\n  }\n}\n\nquery Leads($page: Int, $per_page: Int, $campaign_id: Int, $status: String) {\n  leads(\n    page: $page\n    per_page: $per_page\n    campaign_id: $campaign_id\n    status: $status\n  ) {\n    data {\n      ...LeadFields\n    }\n    current_page\n    last_page\n    total\n  }\n}\n\nquery Lead($id: Int!) {\n  lead(id: $id) {\n    ...LeadFields\n  }\n}\n\nmutation CreateLead($input: CreateLeadInput!) {\n  createLead(input: $input) {\n    ...LeadFields\n  }\n}\n\nmutation UpdateLead($id: Int!, $input: UpdateLeadInput!) {\n  updateLead(id: $id, input: $input) {\n    id\n    status\n    variables\n  }\n}\n\nquery Campaigns {\n  campaigns {\n    id\n    name\n  }\n}\n\nmutation CreateCampaign($name: String!) {\n  createCampaign(input: {name: $name}) {\n    id\n    name\n  }\n}\n\nsubscription CallUpdated($id: Int, $campaign_id: Int) {\n  callUpdated(id: $id, campaign_id: $campaign_id) {\n    id\n    status\n    campaign_id\n    lead_id\n    attempt\n    duration\n    total_cost\n  }\n}\n\nsubscription CampaignUpdated($id: Int!) {\n  campaignUpdated(id: $id) {\n    id\n    status\n    paused_reason\n    stats {\n      leads\n      calls_in_progress\n      attempts\n      total_cost\n    }\n  }\n}": types.LeadFieldsFragmentDoc,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "fragment LeadFields on Lead {\n  id\n  campaign_id\n  phone_number\n  variables\n  status\n  created_at\n  updated_at\n  campaign {\n    id\n    name\n  }\n  secondary_contacts {\n    id\n    phone_number\n    variables\n    status\n  }\n}\n\nquery Leads($page: Int, $per_page: Int, $campaign_id: Int, $status: String) {\n  leads(\n    page: $page\n    per_page: $per_page\n    campaign_id: $campaign_id\n    status: $status\n  ) {\n    data {\n      ...LeadFields\n    }\n    current_page\n    last_page\n    total\n  }\n}\n\nquery Lead($id: Int!) {\n  lead(id: $id) {\n    ...LeadFields\n  }\n}\n\nmutation CreateLead($input: CreateLeadInput!) {\n  createLead(input: $input) {\n    ...LeadFields\n  }\n}\n\nmutation UpdateLead($id: Int!, $input: UpdateLeadInput!) {\n  updateLead(id: $id, input: $input) {\n    id\n    status\n    variables\n  }\n}\n\nquery Campaigns {\n  campaigns {\n    id\n    name\n  }\n}\n\nmutation CreateCampaign($name: String!) {\n  createCampaign(input: {name: $name}) {\n    id\n    name\n  }\n}\n\nsubscription CallUpdated($id: Int, $campaign_id: Int) {\n  callUpdated(id: $id, campaign_id: $campaign_id) {\n    id\n    status\n    campaign_id\n    lead_id\n    attempt\n    duration\n    total_cost\n  }\n}\n\nsubscription CampaignUpdated($id: Int!) {\n  campaignUpdated(id: $id) {\n    id\n    status\n    paused_reason\n    stats {\n      leads\n      calls_in_progress\n      attempts\n      total_cost\n    }\n  }\n}"): typeof import('./graphql').LeadFieldsFragmentDoc;


export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}
