import { randomBytes } from 'node:crypto';
import type { Logger } from '../../src/log';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';
import { until } from '../helpers/dialer';
import { startFakeTwilio, type FakeTwilio } from '../helpers/twilio';

/** SIP trunks at Twilio: each trunk's SIP domain, its credential list or IP access list, mapped for calls; replaced on update, removed on delete. */
let twilio: FakeTwilio;
let app: TestApp;
let me: TestAccount;
let seq = 0;
const logged: string[] = [];
const capture = (...parts: unknown[]) => {
  logged.push(parts.map((p) => (p instanceof Error ? `${p.message} ${p.stack}` : JSON.stringify(p))).join(' '));
};
const logger: Logger = { access: capture, info: capture, debug: capture, warn: capture, error: capture } as unknown as Logger;

beforeAll(async () => {
  twilio = await startFakeTwilio();
  app = await startTestApp({ telephony: { provider: 'twilio', simulatorSpeed: 1000, twilio: twilio.settings() } }, { workers: true, logger });
  me = await app.account({ balance: '20' });
});
afterAll(async () => {
  await app?.close();
  await twilio?.close();
});

const PASSWORD = 'Office-Pbx-2026';
const api = (method: string, path: string, body?: unknown) => app.request(method, `/api${path}`, { token: me.token, body });
const trunk = (over: Record<string, unknown> = {}) => ({
  sip_trunk_type: 'number',
  phone_number: `+49305557${String(100 + seq++)}`,
  sip_username: 'office-pbx',
  sip_password: PASSWORD,
  sip_address: 'sip.carrier.example',
  sip_calling_format: '+e164',
  inbound_authorization_type: 'auth',
  country_code: 'DE',
  ...over,
});
const create = async (over: Record<string, unknown> = {}) => {
  const res = await api('POST', '/user/phone-numbers/sip-trunks', trunk(over));
  if (res.status !== 201) throw new Error(`create: ${res.status} ${res.text}`);
  return res.body.data as { id: number; phone_number: string; sip_domain: string };
};
const stored = async (id: number) =>
  (await app.sql('select twilio_domain_sid, sip_domain, twilio_credential_list_sid, twilio_ip_acl_sid from sip_trunks where phone_number_id = $1', [id]))[0];
/** The SIP requests vozgate sent Twilio from `from` on: method, the path under the account, and the form. */
const sipRequests = (from: number) =>
  twilio.receiver.requests.slice(from).filter((r) => r.url.includes('/SIP/')).map((r) => ({
    method: r.method,
    path: r.url.replace(`/2010-04-01/Accounts/${twilio.accountSid}`, ''),
    form: Object.fromEntries(new URLSearchParams(r.body)),
  }));
const mark = () => twilio.receiver.requests.length;
const trunksOf = async () => (await app.sql('select count(*)::int as n from sip_trunks where account_id = $1', [me.accountId]))[0].n as number;

describe('create', () => {
  it('by credentials: a SIP domain calling this service, a credential list with the trunk’s credential, mapped for calls', async () => {
    const from = mark();
    const { id, sip_domain } = await create();
    const row = await stored(id);
    const requests = sipRequests(from);
    expect(requests).toEqual([
      {
        method: 'POST',
        path: '/SIP/Domains.json',
        form: { DomainName: sip_domain, FriendlyName: `vozgate account ${me.accountId} trunk ${id}`, VoiceUrl: `${app.config.publicUrl}/telephony/twilio/voice`, VoiceMethod: 'POST', SipRegistration: 'false' },
      },
      { method: 'POST', path: '/SIP/CredentialLists.json', form: { FriendlyName: `vozgate account ${me.accountId} trunk ${id}` } },
      { method: 'POST', path: `/SIP/CredentialLists/${row.twilio_credential_list_sid}/Credentials.json`, form: { Username: 'office-pbx', Password: PASSWORD } },
      { method: 'POST', path: `/SIP/Domains/${row.twilio_domain_sid}/Auth/Calls/CredentialListMappings.json`, form: { CredentialListSid: row.twilio_credential_list_sid } },
    ]);
    expect(sip_domain).toMatch(/^vozgate-[0-9a-f]{16}\.sip\.twilio\.com$/);
    expect(row).toEqual({ twilio_domain_sid: expect.stringMatching(/^SD/), sip_domain, twilio_credential_list_sid: expect.stringMatching(/^CL/), twilio_ip_acl_sid: null });
    // What Twilio now holds: the domain maps the list, whose one credential is the trunk's.
    const domain = twilio.sip.domains.get(row.twilio_domain_sid)!;
    expect([...domain.credentialLists]).toEqual([row.twilio_credential_list_sid]);
    expect([...domain.ipAcls]).toEqual([]);
    expect([...twilio.sip.credentialLists.get(row.twilio_credential_list_sid)!.credentials.values()].map((c) => [c.username, c.password])).toEqual([['office-pbx', PASSWORD]]);
  });

  it('by IP: an IP access control list with each address (a range with its CIDR prefix length), mapped for calls', async () => {
    const from = mark();
    const { id } = await create({ inbound_authorization_type: 'ip', allowed_inbound_ips: ['198.51.100.7', '203.0.113.0/24'] });
    const row = await stored(id);
    expect(sipRequests(from).slice(1)).toEqual([
      { method: 'POST', path: '/SIP/IpAccessControlLists.json', form: { FriendlyName: `vozgate account ${me.accountId} trunk ${id}` } },
      { method: 'POST', path: `/SIP/IpAccessControlLists/${row.twilio_ip_acl_sid}/IpAddresses.json`, form: { FriendlyName: '198.51.100.7', IpAddress: '198.51.100.7' } },
      { method: 'POST', path: `/SIP/IpAccessControlLists/${row.twilio_ip_acl_sid}/IpAddresses.json`, form: { FriendlyName: '203.0.113.0/24', IpAddress: '203.0.113.0', CidrPrefixLength: '24' } },
      { method: 'POST', path: `/SIP/Domains/${row.twilio_domain_sid}/Auth/Calls/IpAccessControlListMappings.json`, form: { IpAccessControlListSid: row.twilio_ip_acl_sid } },
    ]);
    expect(row).toMatchObject({ twilio_credential_list_sid: null, twilio_ip_acl_sid: expect.stringMatching(/^AL/) });
    expect([...twilio.sip.domains.get(row.twilio_domain_sid)!.ipAcls]).toEqual([row.twilio_ip_acl_sid]);
  });

  it('refuses, naming the field, what Twilio would: a weak password, a username over 32, an address that is not IPv4; Twilio is not asked', async () => {
    const from = mark();
    for (const password of ['short1A', 'alllowercase-2026', 'ALLUPPERCASE-2026', 'No-Digits-At-All']) {
      const res = await api('POST', '/user/phone-numbers/sip-trunks', trunk({ sip_password: password }));
      expect([password, res.status, res.body.errors]).toEqual([password, 422, { sip_password: [expect.stringContaining('12 caracteres')] }]);
      expect(res.text).not.toContain(password);
    }
    const long = await api('POST', '/user/phone-numbers/sip-trunks', trunk({ sip_username: 'u'.repeat(33) }));
    expect(long.body.errors).toEqual({ sip_username: ['O campo sip_username não pode ser superior a 32 caracteres.'] });
    const v6 = await api('POST', '/user/phone-numbers/sip-trunks', trunk({ inbound_authorization_type: 'ip', allowed_inbound_ips: ['198.51.100.7', '2001:db8::/32'] }));
    expect(v6.body.errors).toEqual({ 'allowed_inbound_ips.1': [expect.stringContaining('IPv4')] });
    // By IP, the password is not Twilio's to check: the carrier's digest challenge on calls out is the only use.
    expect((await api('POST', '/user/phone-numbers/sip-trunks', trunk({ inbound_authorization_type: 'ip', allowed_inbound_ips: ['198.51.100.9'], sip_password: 'abc' }))).status).toBe(201);
    expect(sipRequests(from).filter((r) => r.path.includes('Credential'))).toEqual([]);
  });

  it('Twilio refusing: 502 with its explanation (never the password), no trunk stored, nothing left at Twilio', async () => {
    const before = await trunksOf();
    const domains = twilio.sip.domains.size;
    const lists = twilio.sip.credentialLists.size;
    const acls = twilio.sip.ipAcls.size;
    const from = mark();
    twilio.sip.refuse = {
      method: 'POST',
      pathEnd: '/Credentials.json',
      status: 400,
      body: { code: 21242, message: `Password ${PASSWORD} is not acceptable`, more_info: 'https://www.twilio.com/docs/errors/21242', status: 400 },
    };
    const res = await api('POST', '/user/phone-numbers/sip-trunks', trunk());
    expect(res.status).toBe(502);
    expect(res.body).toEqual({ code: 'PROVIDER_FAILURE', message: 'O provedor de telefonia não configurou o acesso do tronco SIP; nada foi alterado, tente novamente.', error: 'twilio 21242: Password *** is not acceptable (HTTP 400)' });
    expect(res.text).not.toContain(PASSWORD);
    expect(await trunksOf()).toBe(before);
    // The list and the domain it made are gone again.
    expect([twilio.sip.domains.size, twilio.sip.credentialLists.size]).toEqual([domains, lists]);
    expect(sipRequests(from).filter((r) => r.method === 'DELETE').map((r) => r.path.replace(/\/(SD|CL)\w+/g, '/$1…'))).toEqual(['/SIP/CredentialLists/CL….json', '/SIP/Domains/SD….json']);
    // A refused mapping is undone the same way.
    twilio.sip.refuse = { method: 'POST', pathEnd: '/IpAccessControlListMappings.json', status: 400, body: { code: 21231, message: 'IpAccessControlListSid is not valid', status: 400 } };
    const mapped = await api('POST', '/user/phone-numbers/sip-trunks', trunk({ inbound_authorization_type: 'ip', allowed_inbound_ips: ['198.51.100.7'] }));
    expect(mapped.status).toBe(502);
    expect(await trunksOf()).toBe(before);
    expect([twilio.sip.domains.size, twilio.sip.ipAcls.size]).toEqual([domains, acls]);
    expect(logged.join('\n')).not.toContain(PASSWORD);
  });
});

describe('update', () => {
  it('a new password replaces the credential list: the new one mapped, the old one unmapped and deleted', async () => {
    const { id } = await create();
    const old = await stored(id);
    const from = mark();
    const res = await api('PUT', `/user/phone-numbers/sip-trunks/${id}`, { sip_password: 'New-Secret-2027' });
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('New-Secret-2027');
    const now = await stored(id);
    expect(now).toEqual({ ...old, twilio_credential_list_sid: expect.stringMatching(/^CL/) });
    expect(now.twilio_credential_list_sid).not.toBe(old.twilio_credential_list_sid);
    expect(sipRequests(from).map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /SIP/CredentialLists.json',
      `POST /SIP/CredentialLists/${now.twilio_credential_list_sid}/Credentials.json`,
      `POST /SIP/Domains/${old.twilio_domain_sid}/Auth/Calls/CredentialListMappings.json`,
      `DELETE /SIP/Domains/${old.twilio_domain_sid}/Auth/Calls/CredentialListMappings/${old.twilio_credential_list_sid}.json`,
      `DELETE /SIP/CredentialLists/${old.twilio_credential_list_sid}.json`,
    ]);
    expect([...twilio.sip.domains.get(old.twilio_domain_sid)!.credentialLists]).toEqual([now.twilio_credential_list_sid]);
    expect([...twilio.sip.credentialLists.get(now.twilio_credential_list_sid)!.credentials.values()].map((c) => c.password)).toEqual(['New-Secret-2027']);
    expect(twilio.sip.credentialLists.has(old.twilio_credential_list_sid)).toBe(false);
  });

  it('new addresses, or a change from credentials to IP, replace the list; a change Twilio does not check asks it nothing', async () => {
    const { id } = await create();
    const first = await stored(id);
    let from = mark();
    expect((await api('PUT', `/user/phone-numbers/sip-trunks/${id}`, { sip_address: 'pbx.example.org', sip_calling_format: 'national' })).status).toBe(200);
    expect(sipRequests(from)).toEqual([]);
    expect((await api('PUT', `/user/phone-numbers/sip-trunks/${id}`, { inbound_authorization_type: 'ip', allowed_inbound_ips: ['192.0.2.10'] })).status).toBe(200);
    const second = await stored(id);
    expect(second).toMatchObject({ twilio_domain_sid: first.twilio_domain_sid, twilio_credential_list_sid: null, twilio_ip_acl_sid: expect.stringMatching(/^AL/) });
    const domain = twilio.sip.domains.get(first.twilio_domain_sid)!;
    expect([[...domain.credentialLists], [...domain.ipAcls]]).toEqual([[], [second.twilio_ip_acl_sid]]);
    expect(twilio.sip.credentialLists.has(first.twilio_credential_list_sid)).toBe(false);
    from = mark();
    expect((await api('PUT', `/user/phone-numbers/sip-trunks/${id}`, { allowed_inbound_ips: ['192.0.2.0/28'] })).status).toBe(200);
    const third = await stored(id);
    expect(sipRequests(from).map((r) => `${r.method} ${r.path.replace(/\/(SD|AL)\w+/g, '/$1…')} ${JSON.stringify(r.form)}`)).toEqual([
      `POST /SIP/IpAccessControlLists.json {"FriendlyName":"vozgate account ${me.accountId} trunk ${id}"}`,
      'POST /SIP/IpAccessControlLists/AL…/IpAddresses.json {"FriendlyName":"192.0.2.0/28","IpAddress":"192.0.2.0","CidrPrefixLength":"28"}',
      'POST /SIP/Domains/SD…/Auth/Calls/IpAccessControlListMappings.json {"IpAccessControlListSid":"' + third.twilio_ip_acl_sid + '"}',
      'DELETE /SIP/Domains/SD…/Auth/Calls/IpAccessControlListMappings/AL….json {}',
      'DELETE /SIP/IpAccessControlLists/AL….json {}',
    ]);
    expect([...domain.ipAcls]).toEqual([third.twilio_ip_acl_sid]);
  });

  it('Twilio refusing: 502, the trunk and its old list as they were, the new list removed', async () => {
    const { id } = await create();
    const before = await stored(id);
    const [row] = await app.sql('select sip_username, sip_password_sealed, updated_at from sip_trunks where phone_number_id = $1', [id]);
    const lists = twilio.sip.credentialLists.size;
    twilio.sip.refuse = { method: 'POST', pathEnd: '/CredentialListMappings.json', status: 400, body: { code: 21231, message: 'CredentialListSid is not valid', status: 400 } };
    const res = await api('PUT', `/user/phone-numbers/sip-trunks/${id}`, { sip_username: 'renamed-pbx', sip_password: 'Renamed-Pbx-2027' });
    expect(res.status).toBe(502);
    expect(res.body.message).toBe('O provedor de telefonia não configurou o acesso do tronco SIP; nada foi alterado, tente novamente.');
    expect(await stored(id)).toEqual(before);
    expect(await app.sql('select sip_username, sip_password_sealed, updated_at from sip_trunks where phone_number_id = $1', [id])).toEqual([row]);
    expect(twilio.sip.credentialLists.size).toBe(lists);
    expect([...twilio.sip.domains.get(before.twilio_domain_sid)!.credentialLists]).toEqual([before.twilio_credential_list_sid]);
    // Unmapping the old list refused: the new one goes, the old one stays mapped.
    twilio.sip.refuse = { method: 'DELETE', pathEnd: `/CredentialListMappings/${before.twilio_credential_list_sid}.json`, status: 500, body: { code: 20500, message: 'Internal Server Error', status: 500 } };
    expect((await api('PUT', `/user/phone-numbers/sip-trunks/${id}`, { sip_password: 'Renamed-Pbx-2027' })).status).toBe(502);
    expect(await stored(id)).toEqual(before);
    expect([...twilio.sip.domains.get(before.twilio_domain_sid)!.credentialLists]).toEqual([before.twilio_credential_list_sid]);
    expect(twilio.sip.credentialLists.size).toBe(lists);
    expect(logged.join('\n')).not.toContain('Renamed-Pbx-2027');
  });

  it('checks the stored password against Twilio’s rules when a change makes Twilio check it', async () => {
    const { id } = await create({ inbound_authorization_type: 'ip', allowed_inbound_ips: ['198.51.100.9'], sip_password: 'abc' });
    const res = await api('PUT', `/user/phone-numbers/sip-trunks/${id}`, { inbound_authorization_type: 'auth' });
    expect([res.status, res.body.errors]).toEqual([422, { sip_password: [expect.stringContaining('12 caracteres')] }]);
    expect((await api('PUT', `/user/phone-numbers/sip-trunks/${id}`, { inbound_authorization_type: 'auth', sip_password: 'Strong-Enough-2026' })).status).toBe(200);
    expect(await stored(id)).toMatchObject({ twilio_credential_list_sid: expect.stringMatching(/^CL/), twilio_ip_acl_sid: null });
  });
});

describe('delete', () => {
  it('removes the mapping, the list and the domain, then the trunk', async () => {
    const { id } = await create();
    const row = await stored(id);
    const from = mark();
    expect((await api('DELETE', `/user/phone-numbers/${id}`)).status).toBe(200);
    expect(sipRequests(from).map((r) => `${r.method} ${r.path}`)).toEqual([
      `DELETE /SIP/Domains/${row.twilio_domain_sid}/Auth/Calls/CredentialListMappings/${row.twilio_credential_list_sid}.json`,
      `DELETE /SIP/CredentialLists/${row.twilio_credential_list_sid}.json`,
      `DELETE /SIP/Domains/${row.twilio_domain_sid}.json`,
    ]);
    expect([twilio.sip.domains.has(row.twilio_domain_sid), twilio.sip.credentialLists.has(row.twilio_credential_list_sid)]).toEqual([false, false]);
    expect(await app.sql('select 1 from sip_trunks where phone_number_id = $1', [id])).toEqual([]);
  });

  it('Twilio refusing: 502, the trunk still there; asked again, it goes', async () => {
    const { id } = await create({ inbound_authorization_type: 'ip', allowed_inbound_ips: ['198.51.100.7'] });
    const row = await stored(id);
    twilio.sip.refuse = { method: 'DELETE', pathEnd: `/SIP/Domains/${row.twilio_domain_sid}.json`, status: 500, body: { code: 20500, message: 'Internal Server Error', status: 500 } };
    const res = await api('DELETE', `/user/phone-numbers/${id}`);
    expect([res.status, res.body.message]).toEqual([502, 'O provedor de telefonia não removeu o acesso do tronco SIP; ele continua na conta, tente novamente.']);
    expect((await api('GET', `/user/phone-numbers/sip-trunks/${id}`)).status).toBe(200);
    // The list is gone already (404 from then on counts as gone): the second DELETE finishes the work.
    expect((await api('DELETE', `/user/phone-numbers/${id}`)).status).toBe(200);
    expect(twilio.sip.domains.has(row.twilio_domain_sid)).toBe(false);
    expect(await app.sql('select 1 from sip_trunks where phone_number_id = $1', [id])).toEqual([]);
  });
});

describe('calls in', () => {
  const ring = async (to: string, sip: Record<string, string>) => {
    const params = { CallSid: `CA${randomBytes(16).toString('hex')}`, AccountSid: twilio.accountSid, From: 'sip:+4930123456@203.0.113.9', To: to, CallStatus: 'ringing', Direction: 'inbound', ApiVersion: '2010-04-01', SipCallId: randomBytes(8).toString('hex'), ...sip };
    return (await twilio.request(app.config.publicUrl, '/telephony/twilio/voice', params)).text();
  };

  it('are admitted only through the trunk’s own domain: the same username on another trunk’s domain opens nothing', async () => {
    const mine = await create({ sip_username: 'shared-pbx' });
    const theirs = await create({ sip_username: 'shared-pbx', sip_password: 'Other-Secret-2026' });
    await app.outboundAssistant(me, { calls_direction: 'receive', phone_number_id: mine.id });
    expect(await ring(`sip:${mine.phone_number}@${mine.sip_domain}`, { SipDomain: mine.sip_domain, SipUsername: 'shared-pbx' })).toMatch(/^<Response><Connect><Stream /);
    // Twilio authenticated the other trunk's credential on the other trunk's domain.
    expect(await ring(`sip:${mine.phone_number}@${theirs.sip_domain}`, { SipDomain: theirs.sip_domain, SipUsername: 'shared-pbx' })).toBe('<Response><Reject reason="rejected"/></Response>');
  });
});

describe('phone numbers of trunks', () => {
  it('take a nickname of at most 50 characters, as the original platform', async () => {
    const { id } = await create();
    const long = await api('PUT', `/user/phone-numbers/${id}`, { nickname: 'n'.repeat(51) });
    expect([long.status, long.body.errors]).toEqual([422, { nickname: ['O campo nickname não pode ser superior a 50 caracteres.'] }]);
    const ok = await api('PUT', `/user/phone-numbers/${id}`, { nickname: 'n'.repeat(50) });
    expect(ok.status).toBe(200);
    expect((await api('GET', `/user/phone-numbers/sip-trunks/${id}`)).body.nickname).toBe('n'.repeat(50));
  });

  it('an extension trunk calls out From its extension, to the trunk’s SIP URI', async () => {
    const extension = String(41000000 + seq++);
    const line = await create({ sip_trunk_type: 'extension', phone_number: extension, sip_calling_format: 'e164' });
    const assistant = await app.outboundAssistant(me, { phone_number_id: line.id });
    const res = await api('POST', '/user/make_call', { phone_number: '+5511987654321', assistant_id: assistant });
    expect(res.status).toBe(200);
    await until('the request to Twilio', async () => (await app.sql('select provider_call_id from calls where id = $1', [res.body.call_id]))[0].provider_call_id, (sid) => sid !== null);
    const form = new URLSearchParams(twilio.posts().filter((r) => r.url.endsWith('/Calls.json')).at(-1)!.body);
    expect([form.get('From'), form.get('To'), form.get('SipAuthUsername')]).toEqual([extension, 'sip:5511987654321@sip.carrier.example', 'office-pbx']);
  });
});
