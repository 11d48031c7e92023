import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { startTestApp, workerEnv, type TestAccount, type TestApp } from '../helpers/app';
import { until } from '../helpers/dialer';
import { startFakeTwilio, type FakeTwilio } from '../helpers/twilio';

/** SIP trunks: CRUD as the original platform's MCP server sends it, and calls through them with the fake Twilio. */
let twilio: FakeTwilio;
let app: TestApp;
let me: TestAccount;
let seq = 0;

beforeAll(async () => {
  twilio = await startFakeTwilio();
  app = await startTestApp({ telephony: { provider: 'twilio', simulatorSpeed: 1000, twilio: twilio.settings() } }, { workers: true });
  me = await app.account({ balance: '20' });
});
afterAll(async () => {
  await app?.close();
  await twilio?.close();
});

const api = (account: TestAccount, method: string, path: string, body?: unknown) => app.request(method, `/api${path}`, { token: account.token, body });
/** A Berlin number nobody has yet, as the carrier gives it (national). */
const berlin = () => `030 555${String(1000 + seq++)}`;
const trunk = (over: Record<string, unknown> = {}) => ({
  sip_trunk_type: 'number',
  phone_number: berlin(),
  sip_username: 'office-pbx',
  sip_password: 's3cr3t-Passw0rd',
  sip_address: 'sip.carrier.example',
  sip_calling_format: '+e164',
  inbound_authorization_type: 'auth',
  country_code: 'DE',
  ...over,
});
const create = async (account: TestAccount, over: Record<string, unknown> = {}) => {
  const res = await api(account, 'POST', '/user/phone-numbers/sip-trunks', trunk(over));
  if (res.status !== 201) throw new Error(`create: ${res.status} ${res.text}`);
  return res.body.data as { id: number; phone_number: string; sip_domain: string };
};

describe('create, read, update, delete', () => {
  it('creates a trunk whose number becomes one of the account’s, the password sealed and never shown', async () => {
    const res = await api(me, 'POST', '/user/phone-numbers/sip-trunks', trunk({ phone_number: '030 5550001', allowed_inbound_ips: ['203.0.113.0/24'], outbound_proxy: true }));
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      message: 'SIP trunk created successfully',
      data: {
        id: expect.any(Number), sip_trunk_type: 'number', phone_number: '+49305550001', sip_username: 'office-pbx', has_password: true, sip_address: 'sip.carrier.example',
        sip_calling_format: '+e164', inbound_authorization_type: 'auth', allowed_inbound_ips: ['203.0.113.0/24'], country_code: 'DE', outbound_proxy: true, nickname: null, assistant_id: null,
        // Its own SIP domain at Twilio (tests/telephony/sip-provisioning.test.ts).
        sip_domain: expect.stringMatching(/^vozgate-[0-9a-f]{16}\.sip\.twilio\.com$/),
      },
    });
    const { id } = res.body.data;
    const [stored] = await app.sql('select sip_password_sealed from sip_trunks where phone_number_id = $1', [id]);
    expect(stored.sip_password_sealed).toMatch(/^v1:/);
    expect(stored.sip_password_sealed).not.toContain('s3cr3t');
    const list = await api(me, 'GET', '/user/phone-numbers/sip-trunks');
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([res.body.data]);
    const one = await api(me, 'GET', `/user/phone-numbers/sip-trunks/${id}`);
    expect(one.body).toEqual(res.body.data);
    // One of the account's numbers, with the same id: an assistant or a campaign can take it.
    const numbers = await api(me, 'GET', '/user/phone-numbers');
    expect(numbers.body.map((n: { id: number; phone_number: string }) => [n.id, n.phone_number])).toContainEqual([id, '+49305550001']);
    for (const answer of [res, list, one, numbers]) expect(answer.text).not.toContain('s3cr3t');
  });

  it('takes an extension', async () => {
    const res = await api(me, 'POST', '/user/phone-numbers/sip-trunks', trunk({ sip_trunk_type: 'extension', phone_number: String(40000000 + seq++) }));
    expect(res.status).toBe(201);
    expect(res.body.data.phone_number).toMatch(/^4\d{7}$/);
  });

  it('refuses what is missing and what is wrong, naming every field, and stores nothing', async () => {
    const account = await app.account();
    const empty = await api(account, 'POST', '/user/phone-numbers/sip-trunks', {});
    expect(empty.status).toBe(422);
    expect(Object.keys(empty.body.errors).sort()).toEqual(
      ['country_code', 'inbound_authorization_type', 'phone_number', 'sip_address', 'sip_calling_format', 'sip_password', 'sip_trunk_type', 'sip_username'],
    );
    expect(empty.body.errors.sip_username).toEqual(['O campo sip_username é obrigatório.']);
    const wrong = await api(account, 'POST', '/user/phone-numbers/sip-trunks', {
      sip_trunk_type: 'pbx', phone_number: '12', sip_username: 'a b', sip_password: 'x', sip_address: 'sip.carrier.example:5060', sip_calling_format: 'e.164',
      inbound_authorization_type: 'ip', allowed_inbound_ips: ['10.0.0.300', '1.2.3.0/33', '2001:db8::/32'], country_code: 'Germany',
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors).toEqual({
      sip_trunk_type: ['O campo sip_trunk_type deve ser um dos seguintes valores: extension, number.'],
      country_code: ['O campo country_code deve ser um código de país ISO de duas letras (por exemplo BR, US, DE).'],
      sip_username: ['O campo sip_username deve ter de 3 a 128 caracteres visíveis, sem espaços, @ ou dois-pontos.'],
      sip_password: ['O campo sip_password deve ter entre 3 e 128 caracteres.'],
      sip_address: [expect.stringContaining('sem porta')],
      sip_calling_format: ['O campo sip_calling_format deve ser um dos seguintes valores: +e164, e164, national.'],
      'allowed_inbound_ips.0': [expect.stringContaining('endereço IP ou uma faixa CIDR')],
      'allowed_inbound_ips.1': [expect.stringContaining('endereço IP ou uma faixa CIDR')],
      // Twilio's IP access control lists take IPv4 only.
      'allowed_inbound_ips.2': [expect.stringContaining('endereço IPv4')],
    });
    const noIps = await api(account, 'POST', '/user/phone-numbers/sip-trunks', trunk({ inbound_authorization_type: 'ip' }));
    expect(noIps.body.errors).toEqual({ allowed_inbound_ips: ['O campo allowed_inbound_ips deve ter ao menos um IP quando inbound_authorization_type é ip.'] });
    const badNumber = await api(account, 'POST', '/user/phone-numbers/sip-trunks', trunk({ phone_number: '030 12' }));
    expect(badNumber.body.errors).toEqual({ phone_number: [expect.stringContaining('E.164')] });
    const badExtension = await api(account, 'POST', '/user/phone-numbers/sip-trunks', trunk({ sip_trunk_type: 'extension', phone_number: '12a' }));
    expect(badExtension.body.errors).toEqual({ phone_number: ['O campo phone_number de um tronco do tipo extension deve ter de 1 a 15 dígitos.'] });
    const unknown = await api(account, 'POST', '/user/phone-numbers/sip-trunks', trunk({ sip_port: 5060 }));
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors).toHaveProperty('sip_port');
    const taken = await create(account);
    const again = await api(account, 'POST', '/user/phone-numbers/sip-trunks', trunk({ phone_number: taken.phone_number }));
    expect(again.body.errors).toEqual({ phone_number: ['Este número já pertence a uma conta deste serviço.'] });
    expect(await app.sql('select count(*)::int as n from phone_numbers where account_id = $1', [account.accountId])).toEqual([{ n: 1 }]);
  });

  it('updates only the fields sent, the password only when one is sent', async () => {
    const { id } = await create(me);
    const sealed = async () => (await app.sql('select sip_password_sealed from sip_trunks where phone_number_id = $1', [id]))[0].sip_password_sealed;
    const before = await sealed();
    const res = await api(me, 'PUT', `/user/phone-numbers/sip-trunks/${id}`, { sip_address: 'PBX.Example.org', inbound_authorization_type: 'ip', allowed_inbound_ips: ['198.51.100.7'] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ message: 'SIP trunk updated successfully', data: { id, sip_address: 'pbx.example.org', inbound_authorization_type: 'ip', allowed_inbound_ips: ['198.51.100.7'], sip_username: 'office-pbx' } });
    expect(await sealed()).toBe(before);
    const password = await api(me, 'PUT', `/user/phone-numbers/sip-trunks/${id}`, { sip_password: 'An0ther-one-pass' });
    expect(password.status).toBe(200);
    expect(password.text).not.toContain('An0ther-one-pass');
    expect(await sealed()).not.toBe(before);
    const invalid = await api(me, 'PUT', `/user/phone-numbers/sip-trunks/${id}`, { allowed_inbound_ips: [], sip_username: null });
    expect(invalid.status).toBe(422);
    expect(Object.keys(invalid.body.errors).sort()).toEqual(['allowed_inbound_ips', 'sip_username']);
    const type = await api(me, 'PUT', `/user/phone-numbers/sip-trunks/${id}`, { sip_trunk_type: 'extension' });
    expect(type.status).toBe(422);
  });

  it('answers 404 for an id that is not one of the account’s trunks: unknown, a plain number, another account’s', async () => {
    const other = await app.account();
    const theirs = await create(other);
    const plain = await app.phoneNumber(me.accountId, `+5511966${String(100000 + seq++)}`);
    for (const id of [999_999_999, plain, theirs.id]) {
      for (const [method, body] of [['GET', undefined], ['PUT', { sip_username: 'taken-over' }]] as const) {
        const res = await api(me, method, `/user/phone-numbers/sip-trunks/${id}`, body);
        expect([id, method, res.status, res.body.message]).toEqual([id, method, 404, 'Tronco SIP não encontrado']);
      }
    }
    expect((await api(me, 'DELETE', `/user/phone-numbers/${theirs.id}`)).status).toBe(404);
    expect((await api(other, 'GET', `/user/phone-numbers/sip-trunks/${theirs.id}`)).body.sip_username).toBe('office-pbx');
  });

  it('deletes a trunk with its number’s DELETE /user/phone-numbers/{id}, as the MCP server sends it', async () => {
    const { id } = await create(me);
    const assistant = await app.outboundAssistant(me, { phone_number_id: id });
    const res = await api(me, 'DELETE', `/user/phone-numbers/${id}`);
    expect(res.status).toBe(200);
    expect((await api(me, 'GET', `/user/phone-numbers/sip-trunks/${id}`)).status).toBe(404);
    expect(await app.sql('select count(*)::int as n from sip_trunks where phone_number_id = $1', [id])).toEqual([{ n: 0 }]);
    expect(await app.sql('select phone_number_id from assistants where id = $1', [assistant])).toEqual([{ phone_number_id: null }]);
    // No number to release at Twilio: the number is the carrier's (the trunk's SIP domain and lists go: sip-provisioning.test.ts).
    expect(twilio.receiver.requests.filter((r) => r.method === 'DELETE' && r.url.includes('/IncomingPhoneNumbers/'))).toHaveLength(0);
  });
});

describe('calls through a trunk', () => {
  const placedTo = async (from: { id: number }, phone: string) => {
    const assistant = await app.outboundAssistant(me, { phone_number_id: from.id });
    const res = await api(me, 'POST', '/user/make_call', { phone_number: phone, assistant_id: assistant });
    expect(res.status).toBe(200);
    const callId = res.body.call_id as number;
    await until('the request to Twilio', async () => (await app.sql('select provider_call_id from calls where id = $1', [callId]))[0].provider_call_id, (sid) => sid !== null);
    return new URLSearchParams(twilio.posts().filter((r) => r.url.endsWith('/Calls.json')).at(-1)!.body);
  };

  it('are placed with Twilio to the trunk’s SIP URI in its calling format, with its credentials', async () => {
    const plus = await create(me, { sip_address: 'sip.carrier.example' });
    const form = await placedTo(plus, '+5511987654321');
    expect([form.get('To'), form.get('From'), form.get('SipAuthUsername'), form.get('SipAuthPassword')]).toEqual([
      'sip:+5511987654321@sip.carrier.example', plus.phone_number, 'office-pbx', 's3cr3t-Passw0rd',
    ]);
    const national = await create(me, { sip_calling_format: 'national', sip_username: 'berlin-office' });
    expect((await placedTo(national, '+4930901820')).get('To')).toBe('sip:030901820@sip.carrier.example');
    const bare = await create(me, { sip_calling_format: 'e164' });
    expect((await placedTo(bare, '+4930901820')).get('To')).toBe('sip:4930901820@sip.carrier.example');
  });

  it('from a number that is no trunk’s still go to the number, without SIP credentials', async () => {
    const plain = { id: await app.phoneNumber(me.accountId, `+5511966${String(100000 + seq++)}`) };
    const form = await placedTo(plain, '+5511987654322');
    expect([form.get('To'), form.get('SipAuthUsername'), form.get('SipAuthPassword')]).toEqual(['+5511987654322', null, null]);
  });

  describe('coming in', () => {
    const ring = (to: string, sip: Record<string, string>) => {
      const sid = `CA${randomBytes(16).toString('hex')}`;
      const params = { CallSid: sid, AccountSid: twilio.accountSid, From: 'sip:+4930123456@203.0.113.9', To: to, CallStatus: 'ringing', Direction: 'inbound', ApiVersion: '2010-04-01', ...sip };
      return twilio.request(app.config.publicUrl, '/telephony/twilio/voice', params).then(async (res) => ({ sid, status: res.status, twiml: await res.text() }));
    };
    const answeredBy = async (sid: string) => app.sql('select type, assistant_phone_number from calls where provider_call_id = $1', [sid]);
    const REJECTED = '<Response><Reject reason="rejected"/></Response>';

    it('by credentials: answered when Twilio authenticated the trunk’s user, refused otherwise', async () => {
      const line = await create(me, { inbound_authorization_type: 'auth' });
      await app.outboundAssistant(me, { calls_direction: 'receive', phone_number_id: line.id });
      const uri = `sip:${line.phone_number}@${line.sip_domain}`;
      const sip = { SipDomain: line.sip_domain, SipCallId: randomBytes(8).toString('hex'), SipSourceIp: '203.0.113.9' };
      const ok = await ring(uri, { ...sip, SipUsername: 'office-pbx' });
      expect(ok.twiml).toMatch(/^<Response><Connect><Stream /);
      expect(await answeredBy(ok.sid)).toEqual([{ type: 'inbound', assistant_phone_number: line.phone_number }]);
      for (const refused of [{ ...sip, SipUsername: 'intruder' }, sip]) {
        const res = await ring(uri, refused);
        expect([res.status, res.twiml]).toEqual([200, REJECTED]);
        expect(await answeredBy(res.sid)).toEqual([]);
      }
      // Not over SIP at all: nothing says the trunk's carrier sent it.
      const plain = await ring(line.phone_number, {});
      expect(plain.twiml).toBe(REJECTED);
    });

    it('by IP: answered from an allowed address or range, refused from any other', async () => {
      const line = await create(me, { inbound_authorization_type: 'ip', allowed_inbound_ips: ['198.51.100.7', '203.0.113.0/24'], sip_calling_format: 'national' });
      await app.outboundAssistant(me, { calls_direction: 'receive', phone_number_id: line.id });
      // The carrier writes the number with or without its +.
      const uris = [`sip:${line.phone_number}@${line.sip_domain};transport=udp`, `sip:${line.phone_number.slice(1)}@${line.sip_domain}`];
      const sip = (ip: string) => ({ SipDomain: line.sip_domain, SipCallId: randomBytes(8).toString('hex'), SipSourceIp: ip });
      for (const uri of uris) {
        for (const ip of ['198.51.100.7', '203.0.113.200']) expect((await ring(uri, sip(ip))).twiml).toMatch(/^<Response><Connect><Stream /);
        for (const ip of ['198.51.100.8', '192.0.2.1', 'not-an-ip']) expect((await ring(uri, sip(ip))).twiml).toBe(REJECTED);
      }
      const [{ n }] = await app.sql('select count(*)::int as n from calls where assistant_phone_number = $1', [line.phone_number]);
      expect(n).toBe(4);
    });

    it('another account’s trunk user does not open this account’s trunk', async () => {
      const other = await app.account();
      await create(other, { sip_username: 'other-pbx' });
      const line = await create(me, { sip_username: 'mine-pbx' });
      await app.outboundAssistant(me, { calls_direction: 'receive', phone_number_id: line.id });
      const res = await ring(`sip:${line.phone_number}@${line.sip_domain}`, { SipDomain: line.sip_domain, SipCallId: 'x1', SipUsername: 'other-pbx' });
      expect(res.twiml).toBe(REJECTED);
    });
  });
});

describe('the operator CLI', () => {
  it('lists an account’s trunks with sip-trunk:list, without their passwords', async () => {
    const account = await app.account();
    const { id } = await create(account, { sip_username: 'cli-pbx' });
    const cli = path.resolve(__dirname, '../../dist/src/cli/index.js');
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, [cli, 'sip-trunk:list', '--account', String(account.accountId)], { env: workerEnv(app) }, (error, out, err) => (error ? reject(new Error(err)) : resolve(out))),
    );
    expect(stdout).not.toContain('s3cr3t');
    expect(JSON.parse(stdout)).toEqual({ account_id: account.accountId, sip_trunks: [expect.objectContaining({ id, sip_username: 'cli-pbx', has_password: true })] });
  });
});
