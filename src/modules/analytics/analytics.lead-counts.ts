import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Each campaign's leads, for the funnels, without counting them (Migration20261218000000_analytics_days):
 * a trigger records every change of leads as rows of `campaign_lead_count_deltas`, and this folds
 * them into `campaign_lead_counts`; a campaign's count is the sum of both, exact at any moment.
 */

/** A campaign's leads now, of a campaign id expression (`c.id`, say): SQL. */
export const leadCountSql = (campaignId: string) =>
  `(coalesce((select k.n from campaign_lead_counts k where k.campaign_id = ${campaignId}), 0)
    + coalesce((select sum(d.n) from campaign_lead_count_deltas d where d.campaign_id = ${campaignId}), 0))::int`;

/** Folds the recorded changes into the counts, in key order (so two folds never wait on each other in a circle); answers how many rows it folded. */
export async function foldLeadCounts(em: EntityManager): Promise<number> {
  const [{ folded }] = await em.execute<{ folded: number }[]>(
    `with moved as (delete from campaign_lead_count_deltas returning *),
     summed as (select campaign_id, sum(n) as n, count(*) as rows from moved group by 1),
     added as (
       insert into campaign_lead_counts as k (campaign_id, n) select campaign_id, n from summed order by 1
       on conflict (campaign_id) do update set n = k.n + excluded.n)
     select coalesce(sum(rows), 0)::int as folded from summed`,
  );
  return folded;
}
