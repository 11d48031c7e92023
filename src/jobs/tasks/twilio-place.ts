import { TwilioVoice } from '../../telephony/twilio';
import type { Task } from './task';

/** Places a call with Twilio, out of the transaction that created it. */
export const twilioPlaceTask: Task<'twilio:place'> = {
  servedBy: (runtime) => runtime.telephony instanceof TwilioVoice,
  run: (runtime, { call_id }) => (runtime.telephony as TwilioVoice).place(runtime.orm.em.fork(), runtime.lifecycle, call_id),
};
