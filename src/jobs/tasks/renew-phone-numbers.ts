import { renewDueNumbers } from '../../modules/accounts/phone-number.service';
import type { Task } from './task';

/** Every hour (the runner's crontab): bought numbers whose month ends are charged again, or expire. */
export const renewPhoneNumbersTask: Task<'phone-numbers:renew'> = {
  async run(runtime) {
    const { renewed, expired } = await renewDueNumbers(runtime.orm.em.fork(), runtime.config);
    if (renewed + expired > 0) runtime.logger.info(`phone numbers: ${renewed} renewed, ${expired} expired for want of balance`);
  },
};
