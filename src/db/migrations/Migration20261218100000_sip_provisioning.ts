import { Migration } from '@mikro-orm/migrations';

/**
 * What Twilio holds of a trunk (TELEPHONY_PROVIDER=twilio): its SIP domain (sid and name, the
 * host its carrier sends calls to) and the one list mapped to it, a credential list for `auth`
 * or an IP access control list for `ip`. Null for trunks made with the simulator.
 */
export class Migration20261218100000_sip_provisioning extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table sip_trunks
        add column twilio_domain_sid varchar(64),
        add column sip_domain varchar(255),
        add column twilio_credential_list_sid varchar(64),
        add column twilio_ip_acl_sid varchar(64);`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table sip_trunks drop column twilio_domain_sid, drop column sip_domain, drop column twilio_credential_list_sid, drop column twilio_ip_acl_sid;`);
  }
}
