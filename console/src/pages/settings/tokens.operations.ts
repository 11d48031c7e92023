import { graphql } from '../../gql';

export const ApiTokensDocument = graphql(`
  query ConsoleApiTokens {
    apiTokens {
      id
      prefix
      name
      created_at
      last_used_at
    }
  }
`);

export const CreateApiTokenDocument = graphql(`
  mutation ConsoleCreateApiToken($name: String) {
    createApiToken(name: $name) {
      token
      api_token {
        id
        prefix
      }
    }
  }
`);

export const RevokeApiTokenDocument = graphql(`
  mutation ConsoleRevokeApiToken($id: Int!) {
    revokeApiToken(id: $id)
  }
`);

export const VoiceVendorsDocument = graphql(`
  query ConsoleVoiceVendors {
    voiceVendors {
      code
      name
      parts
      configured
      hosted
      variables
    }
  }
`);
