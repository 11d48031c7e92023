/** A status as a coloured pill; the colour follows what the status means, the text says it. */
const TONE: Record<string, string> = {
  running: 'live',
  'in-progress': 'live',
  processing: 'live',
  ringing: 'live',
  initiated: 'live',
  scheduled: 'wait',
  rescheduled: 'wait',
  created: 'wait',
  draft: 'wait',
  pending: 'wait',
  paused: 'warn',
  busy: 'warn',
  'no-answer': 'warn',
  'reached-max-retries': 'warn',
  vendor_retried: 'warn',
  vendor_switched: 'warn',
  completed: 'good',
  delivered: 'good',
  ended: 'good',
  ended_by_customer: 'good',
  ended_by_assistant: 'good',
  active: 'good',
  failed: 'bad',
  blacklisted: 'bad',
  cancelled: 'bad',
};

export function Status({ value }: { value: string }) {
  return <span className={`status status-${TONE[value] ?? 'wait'}`}>{value}</span>;
}
