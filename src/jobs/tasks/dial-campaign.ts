import { dialCampaign } from '../../modules/campaigns/dialer';
import type { Task } from './task';

/** A campaign's dialer run: it places what it can and says when it wants to run next. */
export const dialCampaignTask: Task<'dialer:campaign'> = {
  run: (runtime, { campaign_id }) => dialCampaign(runtime.orm.em.fork(), runtime, campaign_id),
};
