import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * A conversation's reply lease: the process writing a reply holds it (`reply_lease`, until
 * `reply_lease_until`) instead of a database connection while its model answers, so that the
 * conversation's next message, on any process, waits for that reply; a process that died while
 * writing one holds it no longer than the lease. The API's messages (conversation.exchange.ts)
 * and the inbound SMS and WhatsApp (conversation.inbound.ts) take it alike.
 */

/** How long a reply may take: past it, another process presumes its writer dead and answers the next message. */
export const REPLY_LEASE_SECONDS = 120;
/** How long a message waits for a reply another process is writing. */
export const REPLY_WAIT_MS = 30_000;
export const REPLY_POLL_MS = 100;

/** A select-list column of `conversations`: whether a reply of it is being written now. */
export const REPLYING = 'coalesce(reply_lease_until > now(), false) as replying';

/** SET items of an update of the conversation's row (locked by the caller) that take the lease `lease`. */
export function takingLease(lease: string): { sql: string; params: unknown[] } {
  return { sql: 'reply_lease = ?, reply_lease_until = now() + make_interval(secs => ?)', params: [lease, REPLY_LEASE_SECONDS] };
}

/** SET items that give the lease back, unless it ran out and another process holds it now. */
export function givingBackLease(lease: string): { sql: string; params: unknown[] } {
  return {
    sql: 'reply_lease = case when reply_lease = ? then null else reply_lease end, reply_lease_until = case when reply_lease = ? then null else reply_lease_until end',
    params: [lease, lease],
  };
}

/** Takes the lease of the conversation `id`, whose row the caller's transaction has locked; answers it. */
export async function takeLease(tx: EntityManager, id: string): Promise<string> {
  const lease = randomUUID();
  const set = takingLease(lease);
  await tx.execute(`update conversations set ${set.sql} where id = ?`, [...set.params, id]);
  return lease;
}

/** Gives the lease back, unless it ran out and another process holds it now. */
export async function giveBackLease(tx: EntityManager, id: string, lease: string): Promise<void> {
  const set = givingBackLease(lease);
  await tx.execute(`update conversations set ${set.sql} where id = ?`, [...set.params, id]);
}

/** Waits a moment before a message asks again for a conversation whose reply is being written. */
export const pollPause = () => new Promise((resolve) => setTimeout(resolve, REPLY_POLL_MS));
