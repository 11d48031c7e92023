import { graphql } from '../../gql';

export const LeadsDocument = graphql(`
  query ConsoleLeads($campaign_id: Int!, $page: Int, $per_page: Int, $status: String, $phone_number: String) {
    leads(campaign_id: $campaign_id, page: $page, per_page: $per_page, status: $status, phone_number: $phone_number) {
      current_page
      last_page
      per_page
      total
      from
      to
      data {
        id
        phone_number
        status
        attempts
        next_attempt_at
        variables
        updated_at
      }
    }
  }
`);

export const LeadLiveDocument = graphql(`
  subscription ConsoleLeadLive($campaign_id: Int) {
    leadUpdated(campaign_id: $campaign_id) {
      id
      status
      attempts
      next_attempt_at
      updated_at
    }
  }
`);

export const LeadDetailDocument = graphql(`
  query ConsoleLeadDetail($id: Int!, $campaign_id: Int!, $phone_number: String!) {
    lead(id: $id) {
      id
      phone_number
      status
      attempts
      variables
      secondary_contacts {
        id
        phone_number
        status
      }
    }
    calls(campaign_id: $campaign_id, phone_number: $phone_number, per_page: 50) {
      data {
        id
        attempt
        status
        duration
        total_cost
        created_at
        client_phone_number
        lead_id
      }
    }
  }
`);

export const CreateLeadDocument = graphql(`
  mutation ConsoleCreateLead($input: CreateLeadInput!) {
    createLead(input: $input) {
      id
    }
  }
`);
