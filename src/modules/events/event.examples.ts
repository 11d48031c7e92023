import type { EventType } from './event.outbox';

/**
 * What each event type means and an example of its `data`, for the OpenAPI document's
 * `webhooks` and the README. `data` is the resource's state at the event, in the REST field
 * vocabulary.
 */
const call = {
  id: 812,
  assistant_id: 3,
  assistant_name: 'Ana',
  campaign_id: 5,
  campaign_name: 'Black Friday',
  lead_id: 4120,
  attempt: 2,
  type: 'outbound',
  duration: 74,
  assistant_phone_number: '+551140045000',
  client_phone_number: '+5511987654321',
  status: 'completed',
  transcript: 'Assistente: Olá, aqui é a Ana...\nCliente: Oi, pode falar.',
  variables: { agreed: true },
  evaluation: { sentiment: 'positive', outcome: 'success', score: 8 },
  webhook_response: null,
  carrier_cost: 0.12,
  total_cost: 0.22,
  answered_by: 'human',
  transferred_to: null,
  recording_url: null,
  created_at: '2026-11-22 14:03:10',
  updated_at: '2026-11-22 14:04:31',
};

const lead = {
  id: 4120,
  campaign_id: 5,
  phone_number: '+5511987654321',
  variables: { customer_name: 'Ana' },
  status: 'rescheduled',
  attempts: 1,
  next_attempt_at: '2026-11-22 15:03:12',
  created_at: '2026-11-21 09:00:00',
  updated_at: '2026-11-22 14:03:12',
};

const campaign = {
  id: 5,
  name: 'Black Friday',
  assistant_id: 3,
  timezone: 'America/Sao_Paulo',
  max_calls_in_parallel: 3,
  allowed_hours_start_time: '09:00',
  allowed_hours_end_time: '18:00',
  allowed_days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'],
  max_retries: 3,
  retry_interval: 60,
  retry_on_voicemail: true,
  retry_on_goal_incomplete: false,
  goal_completion_variable: null,
  mark_complete_when_no_leads: true,
  phone_number_ids: [1],
  status: 'paused',
  paused_reason: 'insufficient_balance',
  created_at: '2026-11-20 10:00:00',
  updated_at: '2026-11-22 14:05:00',
};

const sms = {
  id: 77,
  phone_number_id: 1,
  from: '+551140045000',
  to: '+5511987654321',
  body: 'Seu pedido saiu para entrega.',
  user_id: 2,
  encoding: 'GSM-7',
  segments: 1,
  segment_price: 0.05,
  total_cost: 0.05,
  status: 'sent',
  sms_sid: 'SM0123456789abcdef0123456789abcdef',
  error: null,
  created_at: '2026-11-22 14:06:00',
  updated_at: '2026-11-22 14:06:01',
};

export const EVENT_CATALOGUE: Record<EventType, { summary: string; data: Record<string, unknown> }> = {
  'call.initiated': { summary: 'A call was created and handed to the telephony provider', data: { ...call, status: 'initiated', duration: 0, carrier_cost: 0, total_cost: 0, answered_by: null } },
  'call.ringing': { summary: 'The phone is ringing', data: { ...call, status: 'ringing', duration: 0, carrier_cost: 0, total_cost: 0, answered_by: null } },
  'call.answered': { summary: 'A person or a machine answered (`answered_by`)', data: { ...call, status: 'in-progress', duration: 0, carrier_cost: 0, total_cost: 0 } },
  'call.transferred': {
    summary: 'The assistant handed the caller to a person (`transferred_to`, `transfer_mode`); the call ends when that leg does',
    data: { ...call, status: 'in-progress', duration: 0, carrier_cost: 0, total_cost: 0, transferred_to: '+551130030000', transfer_mode: 'cold' },
  },
  'call.finished': {
    summary: 'A call ended, whatever its outcome (busy, no-answer and failed included); for a campaign lead, `is_last_attempt` says whether the dialer will call the lead again',
    data: { ...call, is_last_attempt: true },
  },
  'lead.status_changed': { summary: 'A lead’s status changed (the dialer, a client, the do-not-call list)', data: lead },
  'campaign.status_changed': { summary: 'A campaign was started, stopped, paused by the dialer or completed', data: campaign },
  'campaign.completed': { summary: 'A campaign has no lead left to dial or in flight', data: { ...campaign, status: 'completed', paused_reason: null } },
  'balance.low': { summary: 'A charge took the balance below BALANCE_LOW_THRESHOLD', data: { balance: 4.99, threshold: 5 } },
  'sms.sent': { summary: 'The provider accepted an SMS', data: sms },
  'sms.failed': { summary: 'An SMS failed for certain; its charge was given back', data: { ...sms, status: 'failed', sms_sid: null, error: 'HTTP 400: 21211 Invalid To' } },
  'phone_number.expired': {
    summary: 'A bought number’s month ended and the balance did not cover the next (`monthly_price`): it is no longer renewed, and stops working after `expires_at`',
    data: { id: 4, phone_number: '+551140045001', expires_at: '2026-12-13', monthly_price: 5, reason: 'insufficient_balance' },
  },
};
