import { specTimestampOf } from '../../db/types';
import type { EventInput } from '../events/event.outbox';

/** A lead's state, from a row of `leads` (RETURNING *) or an entity's values. */
export function leadSnapshot(row: Record<string, any>): Record<string, unknown> {
  return {
    id: row.id,
    campaign_id: row.campaign_id ?? row.campaign?.id,
    phone_number: row.phone_number,
    variables: row.variables,
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: specTimestampOf(row.next_attempt_at),
    created_at: specTimestampOf(row.created_at),
    updated_at: specTimestampOf(row.updated_at),
  };
}

/** `lead.status_changed` for each lead row (RETURNING * of the update that changed them). */
export function leadEvents(accountId: number, rows: Record<string, any>[]): EventInput[] {
  return rows.map((row) => ({ accountId, type: 'lead.status_changed' as const, data: leadSnapshot(row) }));
}
