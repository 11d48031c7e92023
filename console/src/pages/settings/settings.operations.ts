import { graphql } from '../../gql';

export const ToolsDocument = graphql(`
  query ConsoleTools {
    tools {
      id
      name
      description
      endpoint
      method
      timeout
      speak_during
      headers {
        name
        value
      }
      schema {
        name
        type
        description
      }
      updated_at
    }
  }
`);

export const CreateToolDocument = graphql(`
  mutation ConsoleCreateTool($input: CreateToolInput!) {
    createTool(input: $input) {
      id
    }
  }
`);

export const UpdateToolDocument = graphql(`
  mutation ConsoleUpdateTool($id: Int!, $input: UpdateToolInput!) {
    updateTool(id: $id, input: $input) {
      id
    }
  }
`);

export const DeleteToolDocument = graphql(`
  mutation ConsoleDeleteTool($id: Int!) {
    deleteTool(id: $id)
  }
`);

export const PhoneNumbersDocument = graphql(`
  query ConsolePhoneNumbers {
    phoneNumbers {
      id
      phone_number
      nickname
      sms_capable
      expires_at
      assistant_id
      monthly_price
      renews
    }
    assistants {
      id
      assistant_name
    }
    me {
      id
      balance
      currency
    }
  }
`);

export const AvailablePhoneNumbersDocument = graphql(`
  query ConsoleAvailablePhoneNumbers($country_code: String, $contains: String) {
    availablePhoneNumbers(country_code: $country_code, contains: $contains) {
      phone_number
      friendly_name
      locality
      region
      iso_country
      capabilities {
        voice
        sms
        mms
      }
      monthly_price
    }
  }
`);

export const PurchasePhoneNumberDocument = graphql(`
  mutation ConsolePurchasePhoneNumber($input: PurchasePhoneNumberInput!) {
    purchasePhoneNumber(input: $input) {
      id
      phone_number
    }
  }
`);

export const UpdatePhoneNumberDocument = graphql(`
  mutation ConsoleUpdatePhoneNumber($id: Int!, $input: UpdatePhoneNumberInput!) {
    updatePhoneNumber(id: $id, input: $input) {
      id
      nickname
    }
  }
`);

export const ReleasePhoneNumberDocument = graphql(`
  mutation ConsoleReleasePhoneNumber($id: Int!) {
    releasePhoneNumber(id: $id)
  }
`);

export const DncDocument = graphql(`
  query ConsoleDnc {
    dncNumbers {
      phone_number
      created_at
    }
  }
`);

export const AddDncDocument = graphql(`
  mutation ConsoleAddDnc($phone_number: String!) {
    addDncNumber(phone_number: $phone_number) {
      phone_number
    }
  }
`);

export const RemoveDncDocument = graphql(`
  mutation ConsoleRemoveDnc($phone_number: String!) {
    removeDncNumber(phone_number: $phone_number)
  }
`);

export const WebhookEndpointsDocument = graphql(`
  query ConsoleWebhookEndpoints {
    webhookEndpoints {
      id
      url
      events
      disabled_at
      created_at
    }
  }
`);

export const WebhookEndpointDocument = graphql(`
  query ConsoleWebhookEndpoint($id: Int!) {
    webhookEndpoint(id: $id) {
      id
      url
      events
      disabled_at
      created_at
      deliveries(last: 50) {
        id
        event_type
        status
        created_at
        next_attempt_at
        payload
        attempts {
          attempt
          status_code
          error
          latency_ms
          created_at
          response_body
        }
      }
    }
  }
`);

export const CreateWebhookEndpointDocument = graphql(`
  mutation ConsoleCreateWebhookEndpoint($url: String!, $events: [String!]!) {
    createWebhookEndpoint(url: $url, events: $events) {
      id
      secret
      warning
    }
  }
`);

export const DeleteWebhookEndpointDocument = graphql(`
  mutation ConsoleDeleteWebhookEndpoint($id: Int!) {
    deleteWebhookEndpoint(id: $id)
  }
`);
