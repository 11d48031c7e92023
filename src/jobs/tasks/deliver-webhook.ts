import { deliver } from '../../modules/webhooks/webhook.service';
import type { Task } from './task';

/** One webhook delivery attempt; a failure schedules the next one itself. */
export const deliverWebhookTask: Task<'webhook:deliver'> = {
  run: (runtime, { delivery_id }) => deliver(runtime.orm.em.fork(), runtime, delivery_id),
};
