import { reconcileSms } from '../../modules/sms/sms.service';
import type { Task } from './task';

/** Asks the SMS provider what became of a send whose outcome was unknown. */
export const reconcileSmsTask: Task<'sms:reconcile'> = {
  run: (runtime, { sms_id }) => reconcileSms(runtime.orm.em.fork(), runtime.sms, sms_id),
};
