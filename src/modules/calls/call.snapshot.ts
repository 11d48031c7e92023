import type { Call } from './call.entity';

/** A call's state, as GET /user/calls/{id} shows it, with the ids of its assistant and campaign. */
export function callSnapshot(call: Call): Record<string, unknown> {
  return {
    id: call.id,
    assistant_id: call.assistant_id,
    assistant_name: call.assistant_name,
    campaign_id: call.campaign_id,
    campaign_name: call.campaign_name,
    lead_id: call.lead_id,
    attempt: call.attempt,
    type: call.type,
    duration: call.duration,
    assistant_phone_number: call.assistant_phone_number,
    client_phone_number: call.client_phone_number,
    status: call.status,
    transcript: call.transcript,
    variables: call.variables,
    evaluation: call.evaluation,
    webhook_response: call.webhook_response,
    carrier_cost: Number(call.carrier_cost),
    total_cost: Number(call.total_cost),
    answered_by: call.answered_by,
    transferred_to: call.transferred_to,
    recording_url: call.recording_url,
    created_at: call.created_at,
    updated_at: call.updated_at,
  };
}
