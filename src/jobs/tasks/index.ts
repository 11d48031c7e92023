import type { TaskList } from 'graphile-worker';
import type { Runtime } from '../../runtime';
import type { TaskName } from '../queue';
import { analyticsRollupTask } from './analytics-rollup';
import { conversationEndedTask, conversationIdleTask, conversationInboundTask, conversationWebhookTask } from './conversations';
import { deliverWebhookTask } from './deliver-webhook';
import { dialCampaignTask } from './dial-campaign';
import { forgetLeadImportTask, importLeadsTask } from './import-leads';
import { ingestDocumentTask } from './ingest-document';
import { postCallTask } from './post-call';
import { reconcileSmsTask } from './reconcile-sms';
import { renewPhoneNumbersTask } from './renew-phone-numbers';
import { simulatorStepTask } from './simulator-step';
import { sweepTask } from './sweep';
import { testRunTask } from './test-run';
import type { Task } from './task';
import { twilioPlaceTask } from './twilio-place';
import { twilioTimeLimitTask } from './twilio-time-limit';

/** Every task of the table (jobs/queue.ts) with its handler: the compiler refuses a task without one. */
const TASK_HANDLERS: { [T in TaskName]: Task<T> } = {
  'dialer:campaign': dialCampaignTask,
  'webhook:deliver': deliverWebhookTask,
  'calls:post-call': postCallTask,
  'sms:reconcile': reconcileSmsTask,
  'calls:sweep': sweepTask,
  'simulator:step': simulatorStepTask,
  'twilio:place': twilioPlaceTask,
  'twilio:time-limit': twilioTimeLimitTask,
  'leads:import': importLeadsTask,
  'leads:import-forget': forgetLeadImportTask,
  'knowledge:ingest': ingestDocumentTask,
  'conversations:ended': conversationEndedTask,
  'conversations:webhook': conversationWebhookTask,
  'conversations:idle': conversationIdleTask,
  'conversations:inbound': conversationInboundTask,
  'phone-numbers:renew': renewPhoneNumbersTask,
  'tests:run': testRunTask,
  'analytics:rollup': analyticsRollupTask,
};

/** graphile-worker's task list of this process: the handlers it serves, on its runtime. */
export function taskList(runtime: Runtime): TaskList {
  const list: TaskList = {};
  for (const [name, task] of Object.entries(TASK_HANDLERS) as [TaskName, Task<TaskName>][]) {
    if (task.servedBy && !task.servedBy(runtime)) continue;
    list[name] = async (payload, helpers) => void (await task.run(runtime, payload as never, helpers));
  }
  return list;
}
