import { graphql } from '../../gql';

export const AnalyticsDocument = graphql(`
  query ConsoleAnalytics($from: DateTime!, $to: DateTime!, $bucket: String, $campaign_id: Int, $assistant_id: Int) {
    analytics(from: $from, to: $to, bucket: $bucket, campaign_id: $campaign_id, assistant_id: $assistant_id) {
      from
      to
      bucket
      buckets {
        start
        calls
        minutes
        answered
        voicemail
        no_answer
        answer_rate
        voicemail_rate
        no_answer_rate
        average_duration
        cost
        cost_per_answered_call
        transfers
      }
      totals {
        calls
        minutes
        answered
        voicemail
        no_answer
        answer_rate
        voicemail_rate
        no_answer_rate
        average_duration
        cost
        cost_per_answered_call
        transfers
      }
      funnels {
        campaign_id
        campaign_name
        leads
        dialled
        answered
        completed
        transferred
      }
      latency {
        assistant_id
        assistant_name
        calls
        turns
        p50_ms
        p95_ms
      }
    }
  }
`);

/** What the filters offer: the account's campaigns and assistants. */
export const AnalyticsFiltersDocument = graphql(`
  query ConsoleAnalyticsFilters {
    campaigns {
      id
      name
    }
    assistants {
      id
      assistant_name
    }
  }
`);
