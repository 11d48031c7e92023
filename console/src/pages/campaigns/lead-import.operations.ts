import { graphql } from '../../gql';

export const LeadImportFieldsFragment = graphql(`
  fragment ConsoleLeadImportFields on LeadImport {
    id
    campaign_id
    status
    rows_total
    rows_read
    created
    duplicates
    blacklisted
    invalid
    failure
    errors {
      line
      field
      message
    }
  }
`);

export const ImportLeadsDocument = graphql(`
  mutation ConsoleImportLeads($input: ImportLeadsInput!) {
    importLeads(input: $input) {
      ...ConsoleLeadImportFields
    }
  }
`);

export const LeadImportLiveDocument = graphql(`
  subscription ConsoleLeadImportLive($id: Int!) {
    leadImportUpdated(id: $id) {
      ...ConsoleLeadImportFields
    }
  }
`);
