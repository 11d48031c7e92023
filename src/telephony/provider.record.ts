import type { EntityManager } from '@mikro-orm/postgresql';

const TELEPHONY_PROVIDER = 'telephony_provider';

/**
 * Records, at a server's start, the telephony provider its workers run, so that a process with
 * a configuration of its own (the CLI) can tell what will handle a call it creates. The last
 * process to start on the database wins; processes sharing one database run one provider.
 */
export async function recordServerTelephonyProvider(em: EntityManager, provider: string): Promise<void> {
  await em.execute(
    `insert into server_settings (name, value) values (?, ?)
     on conflict (name) do update set value = excluded.value, recorded_at = now()`,
    [TELEPHONY_PROVIDER, provider],
  );
}

/** The provider the last server to start recorded, and when; null when no server has started since the table exists. */
export async function serverTelephonyProvider(em: EntityManager): Promise<{ provider: string; recorded_at: string } | null> {
  const [row]: { value: string; recorded_at: string }[] = await em.execute(
    `select value, to_char(recorded_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS "UTC"') as recorded_at from server_settings where name = ?`,
    [TELEPHONY_PROVIDER],
  );
  return row ? { provider: row.value, recorded_at: row.recorded_at } : null;
}
