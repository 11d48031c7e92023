import { randomBytes } from 'node:crypto';
import { DomainError, FieldErrorCollector, FieldMessages, Messages, NotFoundError } from '../../errors';
import { checkHttpUrl } from '../../lib/checks';
import { checkCalledLater } from '../../lib/outbound';
import type { SecretBox } from '../../lib/secrets';
import { specTimestampSql } from '../../lib/time';
import { EVENT_TYPES, type EventType } from '../events/event.outbox';
import type { Scope } from '../scope';

/** The most webhook endpoints an account may have. */
export const MAX_ENDPOINTS = 20;

export interface WebhookEndpoint {
  id: number;
  url: string;
  events: EventType[];
  /** YYYY-MM-DD HH:MM:SS, UTC; set when a receiver answered 410 (nothing more is sent). */
  disabled_at: string | null;
  created_at: string;
}

const COLUMNS = `id, url, events, ${specTimestampSql('disabled_at')} as disabled_at, ${specTimestampSql('created_at')} as created_at`;

/**
 * A new endpoint for the account: the URL the events are POSTed to, the event types it
 * wants (from the catalogue), and a signing secret of its own, answered this once (kept
 * encrypted). Its deliveries are signed with Standard Webhooks and `x-famulor-signature`.
 */
export async function createEndpoint(
  scope: Scope,
  secrets: SecretBox,
  input: { url: string; events: string[] },
): Promise<WebhookEndpoint & { secret: string; warning: string | null }> {
  const errors = new FieldErrorCollector();
  const url = checkHttpUrl(errors, 'url', input.url);
  const warn = await checkCalledLater(scope.config, errors, 'url', url);
  const events = [...new Set(input.events.map((event) => event.trim()))];
  if (!events.length) errors.add('events', FieldMessages.webhookEvents('events'));
  input.events.forEach((event, index) => {
    if (!(EVENT_TYPES as readonly string[]).includes(event.trim())) errors.add(`events.${index}`, FieldMessages.oneOf(`events.${index}`, EVENT_TYPES));
  });
  errors.throwIfAny();

  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  return scope.em.transactional(async (em) => {
    // The account row orders concurrent creates, so the limit holds.
    await em.execute('select 1 from accounts where id = ? for no key update', [scope.accountId]);
    const [{ n }] = await em.execute('select count(*)::int as n from webhook_endpoints where account_id = ?', [scope.accountId]);
    if (n >= MAX_ENDPOINTS) throw new DomainError('PLAN_LIMIT', Messages.webhookEndpointLimit(MAX_ENDPOINTS));
    const [endpoint]: WebhookEndpoint[] = await em.execute(
      `insert into webhook_endpoints (account_id, url, events, secret_sealed) values (?, ?, ?::jsonb, ?) returning ${COLUMNS}`,
      [scope.accountId, url, JSON.stringify(events), secrets.seal(secret)],
    );
    return { ...endpoint, secret, warning: warn ? Messages.webhookEndpointPrivate : null };
  });
}

export function listEndpoints(scope: Scope): Promise<WebhookEndpoint[]> {
  return scope.em.execute(`select ${COLUMNS} from webhook_endpoints where account_id = ? order by id`, [scope.accountId]);
}

/** Removes an endpoint; its deliveries, pending ones included, go with it. */
export async function deleteEndpoint(scope: Scope, id: number): Promise<void> {
  const rows = await scope.em.execute('delete from webhook_endpoints where id = ? and account_id = ? returning id', [id, scope.accountId]);
  if (!rows.length) throw new NotFoundError(Messages.webhookEndpointNotFound);
}

/** The account's endpoint, or the documented 404. */
export async function requireEndpoint(scope: Scope, id: number): Promise<WebhookEndpoint> {
  const [endpoint]: WebhookEndpoint[] = await scope.em.execute(`select ${COLUMNS} from webhook_endpoints where id = ? and account_id = ?`, [id, scope.accountId]);
  if (!endpoint) throw new NotFoundError(Messages.webhookEndpointNotFound);
  return endpoint;
}
