import ipaddr from 'ipaddr.js';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { sameSecret } from '../../lib/secrets';

// How a call crosses a SIP trunk, both ways: pure, so that the telephony adapter and the tests share it.

export const SIP_TRUNK_TYPES = ['extension', 'number'] as const;
export const SIP_CALLING_FORMATS = ['+e164', 'e164', 'national'] as const;
export const INBOUND_AUTHORIZATION_TYPES = ['auth', 'ip'] as const;

export type SipCallingFormat = (typeof SIP_CALLING_FORMATS)[number];

/** What placing a call through a trunk needs of it. */
export interface TrunkDialing {
  sip_address: string;
  sip_calling_format: string;
  sip_username: string;
  /** In clear: opened from its seal just before the call is placed. */
  sip_password: string;
}

/** The called number (E.164) as the trunk's carrier wants it: `+4930123456`, `4930123456` or the national `030123456`. */
export function callingFormat(e164: string, format: string): string {
  if (format === 'e164') return e164.replace(/^\+/, '');
  if (format === 'national') {
    const parsed = parsePhoneNumberFromString(e164);
    return parsed ? parsed.formatNational().replace(/\D/g, '') : e164.replace(/^\+/, '');
  }
  return e164;
}

/** The SIP URI a call to `e164` goes to through the trunk: `sip:{number}@{sip_address}`. */
export function trunkSipUri(trunk: Pick<TrunkDialing, 'sip_address' | 'sip_calling_format'>, e164: string): string {
  return `sip:${callingFormat(e164, trunk.sip_calling_format)}@${trunk.sip_address}`;
}

/** An IP address or a CIDR range, as written; null when it is neither. */
export function ipRange(text: string): string | null {
  const value = text.trim();
  if (value.includes('/')) return ipaddr.isValidCIDR(value) ? value : null;
  return ipaddr.isValid(value) ? value : null;
}

/** Whether a range (as ipRange answers it) is an IPv4 address in four dotted parts: all Twilio's access lists take. */
export function dottedIpv4Range(range: string): boolean {
  return ipaddr.IPv4.isValidFourPartDecimal(range.split('/')[0]);
}

/** Whether `ip` is one of `ranges` (addresses or CIDR ranges; an IPv4-mapped IPv6 address counts as its IPv4). */
export function ipAllowed(ip: string, ranges: readonly string[]): boolean {
  if (!ipaddr.isValid(ip)) return false;
  const address = ipaddr.process(ip);
  return ranges.some((range) => {
    try {
      const [network, bits] = range.includes('/') ? ipaddr.parseCIDR(range) : [ipaddr.process(range), null];
      const net = network.kind() === 'ipv6' && (network as ipaddr.IPv6).isIPv4MappedAddress() ? (network as ipaddr.IPv6).toIPv4Address() : network;
      if (net.kind() !== address.kind()) return false;
      const prefix = bits ?? (net.kind() === 'ipv4' ? 32 : 128);
      return address.match(net, prefix);
    } catch {
      return false;
    }
  });
}

/** What the trunk's inbound rule asks of a call, and what Twilio's voice webhook says of one. */
export interface TrunkInbound {
  inbound_authorization_type: string;
  sip_username: string;
  allowed_inbound_ips: string[];
  /** The trunk's own SIP domain at Twilio; null when vozgate did not make one (the operator's). */
  sip_domain?: string | null;
}
export interface SipArrival {
  /** Twilio's SipSourceIp: the address the INVITE came from. */
  sourceIp: string | undefined;
  /** Twilio's SipUsername: the user Twilio authenticated with the SIP domain's credential list. */
  username: string | undefined;
  /** Twilio's SipDomain: the domain the INVITE was sent to. */
  domain?: string | undefined;
}

/**
 * Whether a call that arrived at Twilio over SIP for a trunk's number is the trunk's: `ip`
 * wants the INVITE's source address in allowed_inbound_ips; `auth` wants the user Twilio
 * authenticated (its credential list checked the password: the webhook never carries one) to
 * be the trunk's sip_username. A trunk with a domain of its own admits only calls sent to it:
 * that domain's lists are the trunk's, so a credential or address of another trunk (the same
 * username on two trunks, say) opens only its own.
 */
export function trunkAdmits(trunk: TrunkInbound, arrival: SipArrival): boolean {
  if (trunk.sip_domain && arrival.domain?.toLowerCase() !== trunk.sip_domain.toLowerCase()) return false;
  if (trunk.inbound_authorization_type === 'ip') return !!arrival.sourceIp && ipAllowed(arrival.sourceIp, trunk.allowed_inbound_ips);
  if (trunk.inbound_authorization_type === 'auth') return !!arrival.username && sameSecret(arrival.username, trunk.sip_username);
  return false;
}

/** The user part of a SIP URI (`sip:+4930123456@host;transport=udp` → `+4930123456`); null when `to` is not one. */
export function sipUser(to: string): string | null {
  const match = /^sips?:([^@;?]+)@/i.exec(to.trim());
  if (!match) return null;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return null;
  }
}
