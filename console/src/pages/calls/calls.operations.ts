import { graphql } from '../../gql';

export const CallsDocument = graphql(`
  query ConsoleCalls(
    $page: Int
    $per_page: Int
    $status: String
    $type: String
    $phone_number: String
    $assistant_id: Int
    $campaign_id: Int
    $date_from: String
    $date_to: String
  ) {
    calls(
      page: $page
      per_page: $per_page
      status: $status
      type: $type
      phone_number: $phone_number
      assistant_id: $assistant_id
      campaign_id: $campaign_id
      date_from: $date_from
      date_to: $date_to
    ) {
      current_page
      last_page
      per_page
      total
      from
      to
      data {
        id
        type
        status
        answered_by
        hangup_reason
        client_phone_number
        assistant_name
        campaign_name
        duration
        total_cost
        created_at
        evaluation
      }
    }
  }
`);

export const CallsLiveDocument = graphql(`
  subscription ConsoleCallsLive($assistant_id: Int, $campaign_id: Int) {
    callUpdated(assistant_id: $assistant_id, campaign_id: $campaign_id) {
      id
      status
      answered_by
      hangup_reason
      duration
      total_cost
    }
  }
`);

export const CallFilterChoicesDocument = graphql(`
  query ConsoleCallFilterChoices {
    assistants {
      id
      assistant_name
    }
    campaigns {
      id
      name
    }
  }
`);

export const CallDocument = graphql(`
  query ConsoleCall($id: Int!) {
    call(id: $id) {
      id
      type
      status
      answered_by
      hangup_reason
      hangup_detail
      transferred_to
      transfer_status
      transfer_duration
      assistant_id
      assistant_name
      assistant_phone_number
      client_phone_number
      campaign_id
      campaign_name
      lead_id
      attempt
      duration
      carrier_cost
      total_cost
      recording_url
      transcript
      turns {
        speaker
        text
        at_ms
        duration_ms
        latency {
          stt_final_ms
          llm_first_token_ms
          tts_first_byte_ms
          first_audio_ms
        }
        retrievals {
          mode
          query
          chunks {
            chunk_id
            document_id
            score
          }
        }
      }
      events {
        status
        at
        detail
      }
      variables
      evaluation
      latency {
        p50_ms
        p95_ms
        turns
      }
      usage {
        llm_input_tokens
        llm_output_tokens
        stt_seconds
        tts_characters
      }
      webhook_response
      webhook_deliveries {
        id
        status
        event_type
        created_at
        next_attempt_at
        attempts {
          attempt
          status_code
          error
          latency_ms
          created_at
        }
      }
      created_at
      updated_at
    }
  }
`);

export const CallLiveDocument = graphql(`
  subscription ConsoleCallLive($id: Int!) {
    callUpdated(id: $id, initial: true) {
      id
      status
      updated_at
    }
  }
`);

export const HangupCallDocument = graphql(`
  mutation ConsoleHangupCall($id: Int!) {
    hangupCall(id: $id) {
      id
      status
    }
  }
`);

export const RedeliverDocument = graphql(`
  mutation ConsoleRedeliver($delivery_id: String!) {
    redeliverWebhook(delivery_id: $delivery_id)
  }
`);
