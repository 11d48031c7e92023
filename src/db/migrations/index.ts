import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261121000000_foundation } from './Migration20261121000000_foundation';
import { Migration20261121010000_assistants } from './Migration20261121010000_assistants';
import { Migration20261121020000_calls } from './Migration20261121020000_calls';
import { Migration20261121030000_webhooks } from './Migration20261121030000_webhooks';
import { Migration20261121040000_sms } from './Migration20261121040000_sms';
import { Migration20261121050000_call_counts } from './Migration20261121050000_call_counts';
import { Migration20261121060000_rate_limits } from './Migration20261121060000_rate_limits';
import { Migration20261122000000_reliability } from './Migration20261122000000_reliability';
import { Migration20261122010000_dnc } from './Migration20261122010000_dnc';
import { Migration20261122020000_campaigns } from './Migration20261122020000_campaigns';
import { Migration20261122030000_dialer } from './Migration20261122030000_dialer';
import { Migration20261122040000_events } from './Migration20261122040000_events';
import { Migration20261122050000_webhook_endpoints } from './Migration20261122050000_webhook_endpoints';
import { Migration20261122060000_twilio } from './Migration20261122060000_twilio';
import { Migration20261122070000_call_hangup } from './Migration20261122070000_call_hangup';
import { Migration20261122080000_voice } from './Migration20261122080000_voice';
import { Migration20261122090000_call_counters } from './Migration20261122090000_call_counters';
import { Migration20261122100000_models } from './Migration20261122100000_models';
import { Migration20261122110000_call_totals } from './Migration20261122110000_call_totals';
import { Migration20261122120000_calls_lead_index } from './Migration20261122120000_calls_lead_index';
import { Migration20261122130000_call_counts_monthly } from './Migration20261122130000_call_counts_monthly';

/** Every migration, in order. Listed explicitly so that compiled and TypeScript runs agree. */
export const migrations: MigrationObject[] = [
  { name: 'Migration20261121000000_foundation', class: Migration20261121000000_foundation },
  { name: 'Migration20261121010000_assistants', class: Migration20261121010000_assistants },
  { name: 'Migration20261121020000_calls', class: Migration20261121020000_calls },
  { name: 'Migration20261121030000_webhooks', class: Migration20261121030000_webhooks },
  { name: 'Migration20261121040000_sms', class: Migration20261121040000_sms },
  { name: 'Migration20261121050000_call_counts', class: Migration20261121050000_call_counts },
  { name: 'Migration20261121060000_rate_limits', class: Migration20261121060000_rate_limits },
  { name: 'Migration20261122000000_reliability', class: Migration20261122000000_reliability },
  { name: 'Migration20261122010000_dnc', class: Migration20261122010000_dnc },
  { name: 'Migration20261122020000_campaigns', class: Migration20261122020000_campaigns },
  { name: 'Migration20261122030000_dialer', class: Migration20261122030000_dialer },
  { name: 'Migration20261122040000_events', class: Migration20261122040000_events },
  { name: 'Migration20261122050000_webhook_endpoints', class: Migration20261122050000_webhook_endpoints },
  { name: 'Migration20261122060000_twilio', class: Migration20261122060000_twilio },
  { name: 'Migration20261122070000_call_hangup', class: Migration20261122070000_call_hangup },
  { name: 'Migration20261122080000_voice', class: Migration20261122080000_voice },
  { name: 'Migration20261122090000_call_counters', class: Migration20261122090000_call_counters },
  { name: 'Migration20261122100000_models', class: Migration20261122100000_models },
  { name: 'Migration20261122110000_call_totals', class: Migration20261122110000_call_totals },
  { name: 'Migration20261122120000_calls_lead_index', class: Migration20261122120000_calls_lead_index },
  { name: 'Migration20261122130000_call_counts_monthly', class: Migration20261122130000_call_counts_monthly },
];
