import { graphql } from '../../gql';

export const AssistantsDocument = graphql(`
  query ConsoleAssistants {
    assistants {
      id
      assistant_name
      type
      engine_type
      language
      llm_model
      phone_number
      voice {
        id
        name
        provider
      }
      updated_at
    }
  }
`);

export const AssistantFieldsFragment = graphql(`
  fragment ConsoleAssistantFields on Assistant {
    id
    assistant_name
    calls_direction
    engine_type
    voice_ready
    voice_missing
    status
    phone_number_id
    voice_id
    language
    llm_model
    llm_temperature
    timezone
    who_speaks_first
    initial_message
    system_prompt
    tool_ids
    end_call_tool {
      description
    }
    variables
    post_call_schema {
      name
      type
      description
    }
    post_call_evaluation
    max_call_duration
    max_silence_duration
    re_engagement_interval
    speech_speed
    voice_stability
    voice_similarity
    allow_interruptions
    interrupt_sensitivity
    use_min_interrupt_words
    min_interrupt_words
    false_interruption_timeout_ms
    keyterms
    fallback_models
    fallback_voice_id
    transcriber
    backchannel_words
    pronunciations {
      word
      say_as
    }
    transfer_numbers {
      number
      description
    }
    transfer_mode
    transfer_message
    endpoint_type
    endpoint_sensitivity
    noise_cancellation
    ambient_sound_volume
    filler_audios
    record_call
    end_call_on_voicemail
    voicemail_message
    voicemail_beep_timeout_seconds
    is_webhook_active
    webhook_url
    send_webhook_only_on_completed
    include_recording_in_webhook
  }
`);

export const AssistantDocument = graphql(`
  query ConsoleAssistant($id: Int!) {
    assistant(id: $id) {
      ...ConsoleAssistantFields
    }
  }
`);

export const AssistantChoicesDocument = graphql(`
  query ConsoleAssistantChoices {
    transcriberProviders {
      name
      code
    }
    voices {
      id
      name
      mode
      provider
    }
    languages {
      id
      name
    }
    models {
      id
      name
      provider
      type
    }
    tools {
      id
      name
      description
    }
    phoneNumbers {
      id
      phone_number
      assistant_id
    }
  }
`);

export const CreateAssistantDocument = graphql(`
  mutation ConsoleCreateAssistant($input: CreateAssistantInput!) {
    createAssistant(input: $input) {
      ...ConsoleAssistantFields
    }
  }
`);

export const UpdateAssistantDocument = graphql(`
  mutation ConsoleUpdateAssistant($id: Int!, $input: UpdateAssistantInput!) {
    updateAssistant(id: $id, input: $input) {
      ...ConsoleAssistantFields
    }
  }
`);

export const DeleteAssistantDocument = graphql(`
  mutation ConsoleDeleteAssistant($id: Int!) {
    deleteAssistant(id: $id)
  }
`);

export const StartWebCallDocument = graphql(`
  mutation ConsoleStartWebCall($input: WebCallInput!) {
    startWebCall(input: $input) {
      call_id
      url
      expires_at
    }
  }
`);

export const CallMeDocument = graphql(`
  mutation ConsoleCallMe($input: MakeCallInput!) {
    makeCall(input: $input) {
      call_id
      status
    }
  }
`);
