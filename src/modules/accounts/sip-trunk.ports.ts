// What the domain needs of a provider that lets a trunk's calls in at the SIP layer
// (telephony/twilio.sip.ts has Twilio's); boot.ts chooses it, none for the simulator.

/** What the provider must let in for one trunk, as its inbound_authorization_type says. */
export type TrunkAccess = { kind: 'auth'; username: string; password: string } | { kind: 'ip'; ranges: string[] };

/** The SIP domain a trunk's carrier sends its calls to (Twilio's `SD` sid and `*.sip.twilio.com` name). */
export interface TrunkDomain {
  sid: string;
  name: string;
}

/** The provider's lists that hold a trunk's access, mapped to its domain: one of them is set. */
export interface TrunkGrant {
  credentialListSid: string | null;
  ipAclSid: string | null;
}

/**
 * Provisions trunks at the provider. Each method is one step the service orders so that a
 * failure leaves nothing half-made (sip-trunk.service.ts). A step that fails throws
 * SipProvisioningFailure, having undone what it made itself; a resource the provider no longer
 * has counts as removed, so that a step can be repeated.
 */
export interface SipProvisioner {
  /** A new domain whose calls go to `voiceUrl` (this service's voice webhook). */
  openDomain(label: string, voiceUrl: string): Promise<TrunkDomain>;
  /** A new list holding `access` (its credential, or its addresses), mapped to the domain. */
  grant(domainSid: string, label: string, access: TrunkAccess): Promise<TrunkGrant>;
  /** Maps a grant's list (again) to the domain. */
  map(domainSid: string, grant: TrunkGrant): Promise<void>;
  /** Takes the grant's list off the domain: its access no longer lets calls in. */
  unmap(domainSid: string, grant: TrunkGrant): Promise<void>;
  /** Deletes the grant's list (and its credential or addresses). */
  drop(grant: TrunkGrant): Promise<void>;
  closeDomain(domainSid: string): Promise<void>;
}

/** The provider refused or could not be asked; `detail` is its explanation, never a password. */
export class SipProvisioningFailure extends Error {
  constructor(readonly detail: string) {
    super(detail);
    this.name = 'SipProvisioningFailure';
  }
}
