import { Migration } from '@mikro-orm/migrations';

/**
 * The dialer's state: where each lead stands (attempts, the contact being tried, when it may
 * be dialled next), which attempt each call was, and the caller-id rotation of a campaign.
 */
export class Migration20261122030000_dialer extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table leads
        add column attempts int not null default 0,
        add column next_attempt_at timestamptz(3) null,
        add column contact_index int not null default 0,
        add column contact_attempts int not null default 0;`);
    // The due leads of a campaign, in the order the dialer takes them (new ones first, then
    // retries by due time), and only those: finished leads cost the dialer nothing.
    this.addSql(`
      create index leads_dialer_due_index on leads (campaign_id, (coalesce(next_attempt_at, '-infinity'::timestamptz)), id)
        where status in ('created', 'rescheduled');`);
    // Whether a campaign has leads left in a status, and its stats by status.
    this.addSql(`create index leads_campaign_id_status_index on leads (campaign_id, status);`);
    this.addSql(`alter table calls add column attempt int null;`);
    this.addSql(`create index calls_lead_in_flight_index on calls (lead_id) where finished_at is null;`);
    this.addSql(`create index calls_campaign_in_flight_index on calls (campaign_id) where finished_at is null;`);
    this.addSql(`alter table campaigns add column dials bigint not null default 0;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table campaigns drop column if exists dials;`);
    this.addSql(`drop index if exists calls_campaign_in_flight_index;`);
    this.addSql(`drop index if exists calls_lead_in_flight_index;`);
    this.addSql(`alter table calls drop column if exists attempt;`);
    this.addSql(`drop index if exists leads_campaign_id_status_index;`);
    this.addSql(`drop index if exists leads_dialer_due_index;`);
    for (const column of ['contact_attempts', 'contact_index', 'next_attempt_at', 'attempts']) {
      this.addSql(`alter table leads drop column if exists ${column};`);
    }
  }
}
