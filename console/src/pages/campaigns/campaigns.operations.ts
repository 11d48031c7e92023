import { graphql } from '../../gql';

export const CampaignFieldsFragment = graphql(`
  fragment ConsoleCampaignFields on Campaign {
    id
    name
    status
    paused_reason
    assistant_id
    phone_number_ids
    allowed_days
    allowed_hours_start_time
    allowed_hours_end_time
    timezone
    window_open
    next_window_at
    max_calls_in_parallel
    max_retries
    retry_interval
    retry_on_voicemail
    retry_on_goal_incomplete
    goal_completion_variable
    mark_complete_when_no_leads
    created_at
    updated_at
    stats {
      leads
      calls_in_progress
      attempts
      total_cost
    }
  }
`);

export const CampaignsDocument = graphql(`
  query ConsoleCampaigns {
    campaigns {
      ...ConsoleCampaignFields
    }
  }
`);

export const CampaignDocument = graphql(`
  query ConsoleCampaign($id: Int!) {
    campaign(id: $id) {
      ...ConsoleCampaignFields
    }
  }
`);

export const CampaignLiveDocument = graphql(`
  subscription ConsoleCampaignLive($id: Int!) {
    campaignUpdated(id: $id, initial: true) {
      ...ConsoleCampaignFields
    }
  }
`);

export const CampaignFormChoicesDocument = graphql(`
  query ConsoleCampaignFormChoices {
    assistants(calls_direction: "make") {
      id
      assistant_name
      post_call_schema {
        name
      }
    }
    phoneNumbers {
      id
      phone_number
    }
  }
`);

export const CreateCampaignDocument = graphql(`
  mutation ConsoleCreateCampaign($input: CreateCampaignInput!) {
    createCampaign(input: $input) {
      ...ConsoleCampaignFields
    }
  }
`);

export const UpdateCampaignDocument = graphql(`
  mutation ConsoleUpdateCampaign($id: Int!, $input: UpdateCampaignInput!) {
    updateCampaign(id: $id, input: $input) {
      ...ConsoleCampaignFields
    }
  }
`);

export const StartCampaignDocument = graphql(`
  mutation ConsoleStartCampaign($id: Int!) {
    startCampaign(id: $id) {
      ...ConsoleCampaignFields
    }
  }
`);

export const StopCampaignDocument = graphql(`
  mutation ConsoleStopCampaign($id: Int!) {
    stopCampaign(id: $id) {
      ...ConsoleCampaignFields
    }
  }
`);

export const DeleteCampaignDocument = graphql(`
  mutation ConsoleDeleteCampaign($id: Int!) {
    deleteCampaign(id: $id)
  }
`);
