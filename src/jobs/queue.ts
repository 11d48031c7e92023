import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * The job queue's tasks, one table that producers and the runner share (graphile-worker's
 * `GraphileWorker.Tasks`, svix's `QueueTask`): each task's payload, its job key (at most one
 * pending job per key; adding again replaces it) and its attempts. `enqueue` checks a payload
 * against its task when it compiles; the handlers (jobs/tasks/) are typed by the same table.
 *
 * Jobs live in PostgreSQL (graphile-worker). They are added with SQL on the caller's
 * connection, so a job is enqueued in the same transaction as the state change that causes
 * it: both happen, or neither.
 */
export interface TaskPayloads {
  /** A campaign's dialer run (modules/campaigns/dialer.ts). */
  'dialer:campaign': { campaign_id: number };
  /** One webhook delivery attempt (modules/webhooks/webhook.service.ts). */
  'webhook:deliver': { delivery_id: string };
  /** A real call's post-call extraction (modules/calls/call.post-call.ts). */
  'calls:post-call': { call_id: number };
  /** Asks the SMS provider what became of a send whose outcome is unknown (modules/sms/sms.service.ts). */
  'sms:reconcile': { sms_id: number };
  /** The sweeper, every minute (jobs/tasks/sweep.ts). */
  'calls:sweep': Record<string, never>;
  /** One step of a simulated call (telephony/simulator.ts). */
  'simulator:step': { call_id: number; step: 'ring' | 'pickup' | 'converse' | 'hangup' };
  /** Places a call with Twilio, out of the transaction that created it (telephony/twilio.ts). */
  'twilio:place': { call_id: number };
  /** Hangs up a Twilio call at its max_call_duration (telephony/twilio.callbacks.ts). */
  'twilio:time-limit': { call_id: number };
  /** Imports a CSV file of leads, batch by batch, resuming after the last committed batch (modules/leads/lead.import.ts). */
  'leads:import': { import_id: number };
  /** Forgets a finished lead import's record once its retention is over (modules/leads/lead.import.ts). */
  'leads:import-forget': { import_id: number };
  /** Reads a knowledge-base document, chunks it and indexes the chunks (modules/knowledge/knowledge.ingest.ts). */
  'knowledge:ingest': { document_id: number };
  /** A closed conversation's post-call extraction (modules/conversations/conversation.close.ts). */
  'conversations:ended': { conversation_id: string };
  /** One attempt of a closed conversation's conversation-ended webhook (modules/conversations/conversation.close.ts). */
  'conversations:webhook': { conversation_id: string };
  /** Closes the conversations idle for CONVERSATION_IDLE_MINUTES, every minute (jobs/tasks/conversations.ts). */
  'conversations:idle': Record<string, never>;
  /** Answers a customer's SMS or WhatsApp message (Twilio's MessageSid) that the messaging webhook stored (modules/conversations/conversation.inbound.ts). */
  'conversations:inbound': { message_sid: string; opt_out_type: string | null };
  /** Charges the bought numbers whose month ends, or lets them expire, every hour (modules/accounts/phone-number.service.ts). */
  'phone-numbers:renew': Record<string, never>;
  /** Runs an assistant test run's attempts to the end (modules/assistant-tests/test.run.job.ts). */
  'tests:run': { run_id: number };
  /** Rolls up the settled calls that their settlement's own roll-up missed, and folds the campaigns' lead counts, every minute (jobs/tasks/analytics-rollup.ts). */
  'analytics:rollup': Record<string, never>;
}

export type TaskName = keyof TaskPayloads;

interface TaskSpec<P> {
  maxAttempts: number;
  /** The job key: `prefix` followed by the payload's `field`. */
  key?: { prefix: string; field: keyof P & string };
}

export const TASKS: { [T in TaskName]: TaskSpec<TaskPayloads[T]> } = {
  'dialer:campaign': { maxAttempts: 10, key: { prefix: 'dialer:', field: 'campaign_id' } },
  'webhook:deliver': { maxAttempts: 5, key: { prefix: 'webhook:', field: 'delivery_id' } },
  'calls:post-call': { maxAttempts: 6, key: { prefix: 'post-call:', field: 'call_id' } },
  'sms:reconcile': { maxAttempts: 25, key: { prefix: 'sms-reconcile:', field: 'sms_id' } },
  'calls:sweep': { maxAttempts: 1 },
  'simulator:step': { maxAttempts: 10 },
  'twilio:place': { maxAttempts: 8, key: { prefix: 'twilio:place:', field: 'call_id' } },
  'twilio:time-limit': { maxAttempts: 3, key: { prefix: 'twilio:time-limit:', field: 'call_id' } },
  'leads:import': { maxAttempts: 10, key: { prefix: 'lead-import:', field: 'import_id' } },
  'leads:import-forget': { maxAttempts: 5, key: { prefix: 'lead-import-forget:', field: 'import_id' } },
  'knowledge:ingest': { maxAttempts: 5, key: { prefix: 'knowledge-ingest:', field: 'document_id' } },
  'conversations:ended': { maxAttempts: 6, key: { prefix: 'conversation-ended:', field: 'conversation_id' } },
  // Its retries are jobs of their own, on the webhooks' schedule (a running job's key goes to the new one).
  'conversations:webhook': { maxAttempts: 1, key: { prefix: 'conversation-webhook:', field: 'conversation_id' } },
  'conversations:idle': { maxAttempts: 1 },
  // A message is answered once whatever the attempt (handled_at): a retry after a crash answers what is left.
  'conversations:inbound': { maxAttempts: 5, key: { prefix: 'conversation-inbound:', field: 'message_sid' } },
  // Each run claims what is due then; a failed one is the next hour's to finish.
  'phone-numbers:renew': { maxAttempts: 1 },
  // A run resumes where it was: what was written stays written (each attempt once, under its claim).
  'tests:run': { maxAttempts: 10, key: { prefix: 'test-run:', field: 'run_id' } },
  // What a run leaves is the next minute's.
  'analytics:rollup': { maxAttempts: 1 },
};

/** The job key of `task` for its key field's `value` (the key of the pending job, to find or replace it). */
export function jobKey<T extends TaskName>(task: T, value: string | number): string {
  const spec: TaskSpec<TaskPayloads[T]> = TASKS[task];
  if (!spec.key) throw new Error(`the task ${task} has no key field`);
  return `${spec.key.prefix}${value}`;
}

/** Adds a job of `task`, due now or at `runAt`, in the caller's transaction. */
export async function enqueue<T extends TaskName>(em: EntityManager, task: T, payload: TaskPayloads[T], runAt?: Date): Promise<void> {
  const spec: TaskSpec<TaskPayloads[T]> = TASKS[task];
  await em.execute('select graphile_worker.add_job(?, ?::json, null, ?::timestamptz, ?, ?)', [
    task,
    JSON.stringify(payload),
    runAt ? runAt.toISOString() : null,
    spec.maxAttempts,
    spec.key ? jobKey(task, String(payload[spec.key.field])) : null,
  ]);
}

/**
 * The SQL that adds a job of a keyed task whose key field is `value`, an SQL expression of the
 * statement it goes in (`delivery.id`), for producers that add jobs from a statement's rows;
 * `runAt` likewise, or now. Its names and numbers come from the table above, never from input.
 */
export function addJobSql<T extends TaskName>(task: T, value: string, runAt = 'null'): string {
  const spec: TaskSpec<TaskPayloads[T]> = TASKS[task];
  if (!spec.key) throw new Error(`the task ${task} has no key field`);
  return `graphile_worker.add_job('${task}', json_build_object('${spec.key.field}', ${value}), null, ${runAt}, ${spec.maxAttempts}, '${spec.key.prefix}' || ${value})`;
}
