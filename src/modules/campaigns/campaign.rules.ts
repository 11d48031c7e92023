/**
 * A campaign's settings, their bounds and their defaults (design.md, "Campaigns and the
 * dialer"), as ASSISTANT_RULES and TOOL_RULES are the assistants' and tools': the entity's
 * defaults, the inputs' descriptions, the service's checks and the OpenAPI document read them
 * here. (The migrations' column defaults are history: they were written from the same values.)
 */
export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** Integer bounds of the settings a client sets; `max_calls_in_parallel`'s upper bound is PLAN_MAX_PARALLEL_CALLS. */
export const CAMPAIGN_RULES = {
  name: { min: 1, max: 255 },
  max_calls_in_parallel: { min: 1 },
  max_retries: { min: 0, max: 10 },
  retry_interval: { min: 1, max: 4320 },
} as const;

/** The settings a client sets, with the contract's defaults. */
export const CAMPAIGN_DEFAULTS = {
  max_calls_in_parallel: 3,
  allowed_hours_start_time: '09:00',
  allowed_hours_end_time: '18:00',
  allowed_days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'] as Weekday[],
  max_retries: 3,
  retry_interval: 60,
  retry_on_voicemail: true,
  retry_on_goal_incomplete: false,
  mark_complete_when_no_leads: true,
};
