import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { json, type Received } from './receiver';

/**
 * Twilio's SIP resources as its API 2010-04-01 documents them, for the fake Twilio
 * (twilio.ts): form bodies, JSON answers with `SD`/`CL`/`CR`/`AL`/`IP` sids, 201 on create,
 * 204 on delete, Twilio's error bodies (20404 for what it does not have; 400s for a missing
 * or wrong parameter, with codes of this fake's own in Twilio's 21xxx range). Domains (`/SIP/Domains.json`: DomainName ending in
 * sip.twilio.com, FriendlyName, VoiceUrl, VoiceMethod), credential lists and their
 * credentials (Username, Password: 12 or more with a digit and both cases), IP access control
 * lists and their addresses (FriendlyName, IpAddress in four dotted parts, CidrPrefixLength
 * 0-32), and the domain's `Auth/Calls/CredentialListMappings.json` and
 * `Auth/Calls/IpAccessControlListMappings.json` (the list's sid maps it, and names the mapping).
 */
export interface FakeSip {
  domains: Map<string, { sid: string; domain_name: string; form: URLSearchParams; credentialLists: Set<string>; ipAcls: Set<string> }>;
  credentialLists: Map<string, { sid: string; friendly_name: string; credentials: Map<string, { sid: string; username: string; password: string }> }>;
  ipAcls: Map<string, { sid: string; friendly_name: string; addresses: Map<string, { sid: string; ip_address: string; cidr_prefix_length: number; friendly_name: string }> }>;
  /** When set, the next SIP request whose method and path end match is answered with this error (and changes nothing). */
  refuse: { method: string; pathEnd: string; status: number; body: Record<string, unknown> } | null;
}

export function fakeSip(): FakeSip {
  return { domains: new Map(), credentialLists: new Map(), ipAcls: new Map(), refuse: null };
}

const sid = (prefix: string) => `${prefix}${randomBytes(16).toString('hex')}`;
const notFound = { code: 20404, message: 'The requested resource was not found', more_info: 'https://www.twilio.com/docs/errors/20404', status: 404 };
const bad = (res: ServerResponse, code: number, message: string) => json(res, 400, { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status: 400 });
const deleted = (res: ServerResponse) => {
  res.writeHead(204);
  res.end();
};

/** Answers a request under `{base}/SIP/`; false when the path is not one of these resources. */
export function sipApi(sip: FakeSip, base: string, request: Received, res: ServerResponse): boolean {
  const path = new URL(request.url, 'http://twilio.test').pathname;
  if (!path.startsWith(`${base}/SIP/`)) return false;
  const rest = path.slice(`${base}/SIP`.length);
  const form = new URLSearchParams(request.body);
  const refused = sip.refuse;
  if (refused && refused.method === request.method && path.endsWith(refused.pathEnd)) {
    sip.refuse = null;
    json(res, refused.status, refused.body);
    return true;
  }
  const post = request.method === 'POST';
  const del = request.method === 'DELETE';
  if (post && request.headers['content-type'] !== 'application/x-www-form-urlencoded') {
    json(res, 400, { code: 20001, message: 'Invalid content type', status: 400 });
    return true;
  }
  let m: RegExpExecArray | null;

  if (post && rest === '/Domains.json') {
    const name = form.get('DomainName') ?? '';
    if (!/^[A-Za-z0-9-]+\.sip\.twilio\.com$/.test(name)) bad(res, 21232, 'DomainName must end with sip.twilio.com');
    else if ([...sip.domains.values()].some((d) => d.domain_name === name)) bad(res, 21232, `Domain ${name} is already in use`);
    else {
      const domain = { sid: sid('SD'), domain_name: name, form, credentialLists: new Set<string>(), ipAcls: new Set<string>() };
      sip.domains.set(domain.sid, domain);
      json(res, 201, { sid: domain.sid, domain_name: name, friendly_name: form.get('FriendlyName'), voice_url: form.get('VoiceUrl'), voice_method: form.get('VoiceMethod') ?? 'POST', auth_type: '', sip_registration: form.get('SipRegistration') === 'true' });
    }
    return true;
  }
  if (del && (m = /^\/Domains\/(SD\w+)\.json$/.exec(rest))) {
    if (sip.domains.delete(m[1])) deleted(res);
    else json(res, 404, notFound);
    return true;
  }
  if ((m = /^\/Domains\/(SD\w+)\/Auth\/Calls\/(CredentialListMappings|IpAccessControlListMappings)(?:\/(\w+))?\.json$/.exec(rest))) {
    const domain = sip.domains.get(m[1]);
    const credentials = m[2] === 'CredentialListMappings';
    if (!domain) json(res, 404, notFound);
    else if (post && !m[3]) {
      const listSid = form.get(credentials ? 'CredentialListSid' : 'IpAccessControlListSid') ?? '';
      const known = credentials ? sip.credentialLists.get(listSid) : sip.ipAcls.get(listSid);
      if (!known) bad(res, 21231, `${credentials ? 'CredentialListSid' : 'IpAccessControlListSid'} ${listSid} is not valid`);
      else {
        (credentials ? domain.credentialLists : domain.ipAcls).add(listSid);
        json(res, 201, { sid: listSid, friendly_name: known.friendly_name });
      }
    } else if (del && m[3]) {
      if ((credentials ? domain.credentialLists : domain.ipAcls).delete(m[3])) deleted(res);
      else json(res, 404, notFound);
    } else json(res, 405, { code: 20004, message: 'Method not allowed', status: 405 });
    return true;
  }

  if (post && rest === '/CredentialLists.json') {
    if (!form.get('FriendlyName')) bad(res, 21240, 'FriendlyName is required');
    else {
      const list = { sid: sid('CL'), friendly_name: form.get('FriendlyName')!, credentials: new Map() };
      sip.credentialLists.set(list.sid, list);
      json(res, 201, { sid: list.sid, friendly_name: list.friendly_name });
    }
    return true;
  }
  if (del && (m = /^\/CredentialLists\/(CL\w+)\.json$/.exec(rest))) {
    if (sip.credentialLists.delete(m[1])) deleted(res);
    else json(res, 404, notFound);
    return true;
  }
  if (post && (m = /^\/CredentialLists\/(CL\w+)\/Credentials\.json$/.exec(rest))) {
    const list = sip.credentialLists.get(m[1]);
    const username = form.get('Username') ?? '';
    const password = form.get('Password') ?? '';
    if (!list) json(res, 404, notFound);
    else if (!username || username.length > 32) bad(res, 21241, 'Username is required and at most 32 characters');
    else if (!(password.length >= 12 && /\d/.test(password) && /[A-Z]/.test(password) && /[a-z]/.test(password))) bad(res, 21242, 'Password must be at least 12 characters, contain a digit and mixed case');
    else if ([...list.credentials.values()].some((c) => c.username === username)) bad(res, 21243, 'Username already exists in this list');
    else {
      const credential = { sid: sid('CR'), username, password };
      list.credentials.set(credential.sid, credential);
      json(res, 201, { sid: credential.sid, credential_list_sid: list.sid, username });
    }
    return true;
  }

  if (post && rest === '/IpAccessControlLists.json') {
    if (!form.get('FriendlyName')) bad(res, 21240, 'FriendlyName is required');
    else {
      const list = { sid: sid('AL'), friendly_name: form.get('FriendlyName')!, addresses: new Map() };
      sip.ipAcls.set(list.sid, list);
      json(res, 201, { sid: list.sid, friendly_name: list.friendly_name });
    }
    return true;
  }
  if (del && (m = /^\/IpAccessControlLists\/(AL\w+)\.json$/.exec(rest))) {
    if (sip.ipAcls.delete(m[1])) deleted(res);
    else json(res, 404, notFound);
    return true;
  }
  if (post && (m = /^\/IpAccessControlLists\/(AL\w+)\/IpAddresses\.json$/.exec(rest))) {
    const list = sip.ipAcls.get(m[1]);
    const ip = form.get('IpAddress') ?? '';
    const prefix = form.has('CidrPrefixLength') ? Number(form.get('CidrPrefixLength')) : 32;
    if (!list) json(res, 404, notFound);
    else if (!form.get('FriendlyName')) bad(res, 21240, 'FriendlyName is required');
    else if (!/^(\d{1,3})(\.\d{1,3}){3}$/.test(ip) || ip.split('.').some((part) => Number(part) > 255)) bad(res, 21244, `IpAddress ${ip} is not a valid IPv4 address`);
    else if (!Number.isInteger(prefix) || prefix < 0 || prefix > 32) bad(res, 21245, 'CidrPrefixLength must be between 0 and 32');
    else {
      const address = { sid: sid('IP'), ip_address: ip, cidr_prefix_length: prefix, friendly_name: form.get('FriendlyName')! };
      list.addresses.set(address.sid, address);
      json(res, 201, { sid: address.sid, ip_access_control_list_sid: list.sid, ip_address: ip, cidr_prefix_length: prefix, friendly_name: address.friendly_name });
    }
    return true;
  }
  json(res, 404, notFound);
  return true;
}
