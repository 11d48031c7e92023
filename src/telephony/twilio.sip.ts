import { randomBytes } from 'node:crypto';
import type { Config } from '../config';
import { SipProvisioningFailure, type SipProvisioner, type TrunkAccess, type TrunkDomain, type TrunkGrant } from '../modules/accounts/sip-trunk.ports';
import { refusal } from './number.providers';
import { TwilioRest, type TwilioAnswer, type TwilioSettings } from './twilio.rest';

/**
 * Twilio's SIP resources (API 2010-04-01, form bodies, basic auth), one domain per trunk:
 * `POST /SIP/Domains.json` (DomainName, FriendlyName, VoiceUrl, VoiceMethod, SipRegistration);
 * a credential list (`/SIP/CredentialLists.json`, its `/Credentials.json` with Username and
 * Password) or an IP access control list (`/SIP/IpAccessControlLists.json`, its
 * `/IpAddresses.json` with FriendlyName, IpAddress and CidrPrefixLength), mapped to the domain
 * for calls with the documented `/SIP/Domains/{Sid}/Auth/Calls/CredentialListMappings.json`
 * (CredentialListSid) or `.../Auth/Calls/IpAccessControlListMappings.json`
 * (IpAccessControlListSid). A domain applies every list mapped to it to every call, so two
 * trunks that ask differently (one by credentials, one by IP) cannot share one: each trunk has
 * its own, and the carrier calls `sip:{number}@{domain}`.
 */
export class TwilioSipProvisioner implements SipProvisioner {
  private readonly rest: TwilioRest;

  constructor(settings: TwilioSettings, timeoutMs: number) {
    this.rest = new TwilioRest(settings, timeoutMs);
  }

  /** Sends; a request that got no answer, or an answer other than `ok`, throws SipProvisioningFailure (with `secret` blanked out of Twilio's words). */
  private async send(path: string, init: Parameters<TwilioRest['send']>[1], ok: number[], secret?: string): Promise<TwilioAnswer> {
    let answer: TwilioAnswer;
    try {
      answer = await this.rest.send(path, init);
    } catch (error) {
      const code = (error as { cause?: { code?: string } }).cause?.code;
      throw new SipProvisioningFailure(`twilio: no answer (${code ?? ((error as Error).name === 'TimeoutError' ? 'timeout' : 'request failed')})`);
    }
    if (ok.includes(answer.status)) return answer;
    const detail = refusal(answer);
    throw new SipProvisioningFailure(secret ? detail.split(secret).join('***') : detail);
  }

  private async create(path: string, form: Record<string, string>, prefix: string, secret?: string): Promise<{ sid: string; body: Record<string, unknown> }> {
    const answer = await this.send(path, { method: 'POST', form: new URLSearchParams(form) }, [200, 201], secret);
    const sid = (answer.body as { sid?: unknown } | null)?.sid;
    if (typeof sid !== 'string' || !sid.startsWith(prefix) || sid.length > 64) throw new SipProvisioningFailure(`twilio: HTTP ${answer.status} without a ${prefix} sid (${path})`);
    return { sid, body: answer.body };
  }

  /** A DELETE; what Twilio no longer has is deleted already. */
  private async remove(path: string): Promise<void> {
    await this.send(path, { method: 'DELETE' }, [200, 204, 404]);
  }

  async openDomain(label: string, voiceUrl: string): Promise<TrunkDomain> {
    // Domain names are unique across Twilio: a random one cannot be another's.
    const wanted = `vozgate-${randomBytes(8).toString('hex')}.sip.twilio.com`;
    const { sid, body } = await this.create(
      '/SIP/Domains.json',
      { DomainName: wanted, FriendlyName: label.slice(0, 64), VoiceUrl: voiceUrl, VoiceMethod: 'POST', SipRegistration: 'false' },
      'SD',
    );
    const name = typeof body.domain_name === 'string' && body.domain_name.length <= 255 ? body.domain_name : wanted;
    return { sid, name };
  }

  async grant(domainSid: string, label: string, access: TrunkAccess): Promise<TrunkGrant> {
    if (access.kind === 'auth') {
      const list = await this.create('/SIP/CredentialLists.json', { FriendlyName: label.slice(0, 64) }, 'CL');
      try {
        await this.create(`/SIP/CredentialLists/${list.sid}/Credentials.json`, { Username: access.username, Password: access.password }, 'CR', access.password);
        await this.map(domainSid, { credentialListSid: list.sid, ipAclSid: null });
      } catch (error) {
        await this.remove(`/SIP/CredentialLists/${list.sid}.json`).catch(() => {});
        throw error;
      }
      return { credentialListSid: list.sid, ipAclSid: null };
    }
    const list = await this.create('/SIP/IpAccessControlLists.json', { FriendlyName: label.slice(0, 255) }, 'AL');
    try {
      for (const range of access.ranges) {
        const [address, bits] = range.split('/');
        await this.create(`/SIP/IpAccessControlLists/${list.sid}/IpAddresses.json`, { FriendlyName: range, IpAddress: address, ...(bits ? { CidrPrefixLength: bits } : {}) }, 'IP');
      }
      await this.map(domainSid, { credentialListSid: null, ipAclSid: list.sid });
    } catch (error) {
      await this.remove(`/SIP/IpAccessControlLists/${list.sid}.json`).catch(() => {});
      throw error;
    }
    return { credentialListSid: null, ipAclSid: list.sid };
  }

  async map(domainSid: string, grant: TrunkGrant): Promise<void> {
    const domain = `/SIP/Domains/${encodeURIComponent(domainSid)}/Auth/Calls`;
    if (grant.credentialListSid) await this.create(`${domain}/CredentialListMappings.json`, { CredentialListSid: grant.credentialListSid }, 'CL');
    if (grant.ipAclSid) await this.create(`${domain}/IpAccessControlListMappings.json`, { IpAccessControlListSid: grant.ipAclSid }, 'AL');
  }

  async unmap(domainSid: string, grant: TrunkGrant): Promise<void> {
    const domain = `/SIP/Domains/${encodeURIComponent(domainSid)}/Auth/Calls`;
    if (grant.credentialListSid) await this.remove(`${domain}/CredentialListMappings/${encodeURIComponent(grant.credentialListSid)}.json`);
    if (grant.ipAclSid) await this.remove(`${domain}/IpAccessControlListMappings/${encodeURIComponent(grant.ipAclSid)}.json`);
  }

  async drop(grant: TrunkGrant): Promise<void> {
    if (grant.credentialListSid) await this.remove(`/SIP/CredentialLists/${encodeURIComponent(grant.credentialListSid)}.json`);
    if (grant.ipAclSid) await this.remove(`/SIP/IpAccessControlLists/${encodeURIComponent(grant.ipAclSid)}.json`);
  }

  async closeDomain(domainSid: string): Promise<void> {
    await this.remove(`/SIP/Domains/${encodeURIComponent(domainSid)}.json`);
  }
}

/** Twilio's provisioning when it is the telephony provider (TELEPHONY_PROVIDER=twilio); none for the simulator, whose calls need no SIP layer. */
export function createSipProvisioner(config: Config): SipProvisioner | null {
  return config.telephony.provider === 'twilio' && config.telephony.twilio ? new TwilioSipProvisioner(config.telephony.twilio, config.sms.timeoutMs) : null;
}
