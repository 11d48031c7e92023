import { specTimestampOf } from '../../db/types';
import type { EventInput } from '../events/event.outbox';

/** A campaign's fields, but its timestamps, as the API shows them (REST's GraphQL fragment reads it too). */
export const CAMPAIGN_FIELDS = [
  'id', 'name', 'assistant_id', 'timezone', 'max_calls_in_parallel', 'allowed_hours_start_time', 'allowed_hours_end_time', 'allowed_days',
  'max_retries', 'retry_interval', 'retry_on_voicemail', 'retry_on_goal_incomplete', 'goal_completion_variable', 'mark_complete_when_no_leads',
  'phone_number_ids', 'status', 'paused_reason',
] as const;

/** A campaign's settings and status, from a row of `campaigns` or an entity. */
export function campaignSnapshot(row: Record<string, any>): Record<string, unknown> {
  const snapshot: Record<string, unknown> = Object.fromEntries(CAMPAIGN_FIELDS.map((field) => [field, row[field]]));
  snapshot.created_at = specTimestampOf(row.created_at);
  snapshot.updated_at = specTimestampOf(row.updated_at);
  return snapshot;
}

/** `campaign.status_changed` for each campaign row, and `campaign.completed` for those that completed. */
export function campaignEvents(rows: Record<string, any>[]): EventInput[] {
  return rows.flatMap((row) => {
    const accountId = row.account_id ?? row.account?.id;
    const data = campaignSnapshot(row);
    const changed: EventInput = { accountId, type: 'campaign.status_changed', data };
    return row.status === 'completed' ? [changed, { accountId, type: 'campaign.completed' as const, data }] : [changed];
  });
}
