import type { EntityDictionary, EntityManager, EntityName } from '@mikro-orm/postgresql';

/**
 * Row locks, one mode for every writer: FOR NO KEY UPDATE. It orders the writers of a row as
 * FOR UPDATE does, but does not block the FOR KEY SHARE lock that PostgreSQL's foreign-key
 * check takes on the row a new row refers to. So a transaction that inserts an event for an
 * account, a lead for a campaign or a call for a lead never waits for the holder of that
 * account, campaign or lead row, and the two cannot wait on each other in a circle. (FOR UPDATE
 * is for deleting a row or changing its key; no writer here does either under a lock.)
 *
 * Writers that lock several rows never wait on each other in a circle:
 * - the dialer takes the account, then the campaign, and claims due leads with SKIP LOCKED, so
 *   it never waits for a lead;
 * - a call's end takes the call, then its lead, then the account (last, to hold it for as few
 *   statements as it can); its analytics roll-up comes after it commits, and takes calls with
 *   SKIP LOCKED, then their rollup rows in key order (a transfer's charge: the call, then them);
 * - a client's write takes the campaign (shared, for a new lead) or the lead, then the campaign.
 */

/**
 * Locks one row of `entity` by id (and account, for a client's request) and answers it read
 * afresh in the same statement, or null when there is none.
 */
export async function findForUpdate<T extends object>(em: EntityManager, entity: EntityName<T>, id: number, accountId?: number): Promise<T | null> {
  const table = em.getMetadata().get(entity).tableName;
  const owned = accountId === undefined ? '' : ' and account_id = ?';
  const [row]: EntityDictionary<T>[] = await em.execute(`select * from ${table} where id = ?${owned} for no key update`, accountId === undefined ? [id] : [id, accountId]);
  return row ? em.map(entity, row) : null;
}
