import { TwilioVoice } from '../../telephony/twilio';
import type { Task } from './task';

/** Hangs up a Twilio call still answered at its max_call_duration. */
export const twilioTimeLimitTask: Task<'twilio:time-limit'> = {
  servedBy: (runtime) => runtime.telephony instanceof TwilioVoice,
  run: (runtime, { call_id }) => (runtime.telephony as TwilioVoice).enforceTimeLimit(runtime.orm.em.fork(), runtime.lifecycle, call_id),
};
