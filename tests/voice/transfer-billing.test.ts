import Decimal from 'decimal.js';
import { Call } from '../../src/modules/calls/call.entity';
import { callCost } from '../../src/modules/calls/call.pricing';
import { reserveTransfer } from '../../src/modules/calls/call.transfer';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';
import { until } from '../helpers/dialer';
import { startFakeTwilio, type FakeTwilio } from '../helpers/twilio';

/**
 * A warm transfer's money and its leg's end (design.md, "Calls that act"), on the real
 * database against the fake Twilio: Twilio reports the caller's call and the person's leg by
 * two callbacks that may come in either order, at once, and more than once (it retries); the
 * leg's minutes are charged exactly once whatever they do. A caller who hangs up while the
 * person's phone is still ringing, or while the person is held or briefed, takes the leg with
 * them (ended at Twilio). The engines' part (the model's function, the messages) is in
 * transfer.test.ts; here the transfer is made as the engine makes it, through the domain and
 * the provider.
 */
const SALES = '+551130030000';
const CALL_SECONDS = 130;
const LEG_SECONDS = 95;

let twilioFake: FakeTwilio;
let app: TestApp;
let me: TestAccount;
let assistant: number;
let seq = 0;

beforeAll(async () => {
  twilioFake = await startFakeTwilio();
  app = await startTestApp({ telephony: { provider: 'twilio', simulatorSpeed: 1000, twilio: twilioFake.settings() } }, { workers: true });
  me = await app.account({ balance: '50' });
  assistant = await app.outboundAssistant(me, {
    transfer_numbers: [{ number: SALES, description: 'Vendas' }],
    transfer_mode: 'warm',
    record_call: false,
    max_call_duration: 600,
  });
});
afterAll(async () => {
  await app?.close();
  await twilioFake?.close();
});

const balance = async () => (await app.sql('select balance::text from accounts where id = $1', [me.accountId]))[0].balance as string;
const callRow = async (id: number) =>
  (await app.sql('select status, hangup_reason, transfer_status, transfer_duration, carrier_cost::text, total_cost::text from calls where id = $1', [id]))[0];
const updatesOf = (sid: string) => twilioFake.posts().filter((r) => r.url.endsWith(`/Calls/${sid}.json`)).map((r) => Object.fromEntries(new URLSearchParams(r.body)));
const charges = (id: number) =>
  app.sql(`select reference, amount::text from ledger_entries where kind = 'call' and (reference = $1 or reference like $2) order by reference`, [`call:${id}`, `call:${id}:%`]);

/** A call placed and answered, transferred warm as the engine does it (the number checked and reserved, then handed to the provider): the person's phone rings. */
async function transferred() {
  const live = await answered();
  await live.transfer();
  return { ...live, ...(await legOf(live.id)) };
}

/** A call placed and answered, and how to transfer it as the engine does (the number checked and reserved, then handed to the provider). */
async function answered() {
  const phone = `+55119${String(6000 + seq++)}7000`;
  const res = await app.request('POST', '/api/user/make_call', { token: me.token, body: { phone_number: phone, assistant_id: assistant } });
  expect(res.status).toBe(200);
  const id = res.body.call_id as number;
  const { provider_call_id: sid } = await until('placed', async () => (await app.sql('select provider_call_id from calls where id = $1', [id]))[0], (row) => row.provider_call_id !== null);
  await twilioFake.request(app.config.publicUrl, `/telephony/twilio/status?call=${id}`, { CallSid: sid, CallStatus: 'in-progress' });
  const transfer = async () => {
    expect(await reserveTransfer(app.orm.em.fork(), app.config, id, SALES)).toBeNull();
    const call = await app.orm.em.fork().findOneOrFail(Call, { id });
    await app.runtime.telephony.transfer!(app.orm.em.fork(), app.runtime.lifecycle, call, 'O cliente quer falar sobre planos.');
  };
  const callEnds = () => twilioFake.request(app.config.publicUrl, `/telephony/twilio/status?call=${id}`, { CallSid: sid, CallStatus: 'completed', CallDuration: String(CALL_SECONDS) });
  return { id, phone, sid: sid as string, transfer, callEnds };
}

/** The person's leg of call `id`, as vozgate placed it, and how Twilio reports it. */
async function legOf(id: number) {
  const [{ transfer_call_sid: legSid }] = await app.sql('select transfer_call_sid from calls where id = $1', [id]);
  expect(legSid).toEqual(expect.stringMatching(/^CA/));
  const legStatus = (status: string, extra: Record<string, string> = {}) =>
    twilioFake.request(app.config.publicUrl, `/telephony/twilio/transfer-leg?call=${id}`, { CallSid: legSid, CallStatus: status, ...extra });
  const legEnds = (seconds = LEG_SECONDS) => legStatus('completed', { CallDuration: String(seconds) });
  return { legSid: legSid as string, legStatus, legEnds };
}

describe('the leg is charged exactly once, whatever the order of the two callbacks', () => {
  /** Delivers the callbacks as `deliver` says, then checks the call's costs, its ledger and the balance. */
  async function chargedOnce(deliver: (live: Awaited<ReturnType<typeof transferred>>) => Promise<unknown>) {
    const before = await balance();
    const live = await transferred();
    await deliver(live);
    const row = await until('ended', () => callRow(live.id), (r) => r.status !== 'in-progress' && r.transfer_status !== null);
    const own = callCost(app.config, live.phone, CALL_SECONDS, true);
    const leg = callCost(app.config, SALES, LEG_SECONDS, true);
    expect(row).toMatchObject({ status: 'ended', hangup_reason: 'transferred', transfer_status: 'completed', transfer_duration: LEG_SECONDS });
    expect(row.total_cost).toBe(new Decimal(own.total_cost).plus(leg.total_cost).toFixed(4));
    expect(row.carrier_cost).toBe(new Decimal(own.carrier_cost).plus(leg.carrier_cost).toFixed(4));
    expect(await charges(live.id)).toEqual([
      { reference: `call:${live.id}`, amount: new Decimal(own.total_cost).negated().toFixed(4) },
      { reference: `call:${live.id}:transfer`, amount: new Decimal(leg.total_cost).negated().toFixed(4) },
    ]);
    // Every reservation given back, both legs owed once.
    expect(await balance()).toBe(new Decimal(before).minus(row.total_cost).toFixed(4));
  }

  it('the leg reports first, then the call; both again (Twilio retrying)', () =>
    chargedOnce(async ({ callEnds, legEnds }) => {
      for (let round = 0; round < 2; round++) {
        expect((await legEnds()).status).toBe(204);
        expect((await callEnds()).status).toBe(204);
      }
    }));

  it('the call reports first (the caller hung up), then the leg; both again', () =>
    chargedOnce(async ({ callEnds, legEnds }) => {
      for (let round = 0; round < 2; round++) {
        expect((await callEnds()).status).toBe(204);
        expect((await legEnds()).status).toBe(204);
      }
    }));

  it('both at once, each twice', () =>
    chargedOnce(async ({ callEnds, legEnds }) => {
      const answers = await Promise.all([legEnds(), callEnds(), callEnds(), legEnds()]);
      expect(answers.map((answer) => answer.status)).toEqual([204, 204, 204, 204]);
    }));
});

describe('a warm transfer nobody answered: the call is transferred once', () => {
  it('the assistant comes back; a second transfer is refused (nothing reserved or dialled), and the call ends charged its own minutes, the unanswered leg accounted for', async () => {
    const before = await balance();
    const live = await transferred();
    const [{ reserved_amount: reserved }] = await app.sql('select reserved_amount::text from calls where id = $1', [live.id]);
    expect((await live.legStatus('no-answer')).status).toBe(204);
    await until('the assistant back', async () => updatesOf(live.sid).filter((u) => u.Twiml?.includes('name="resume"')).length, (n) => n === 1, 20_000);
    expect(await app.sql('select status, hangup_reason, transferred_to, transfer_status from calls where id = $1', [live.id])).toEqual([
      { status: 'in-progress', hangup_reason: null, transferred_to: null, transfer_status: 'no-answer' },
    ]);
    // The model asks again (a second leg would be neither recorded nor charged, and a second
    // unanswered one would leave the caller on hold): refused, and nothing changes.
    const dialled = twilioFake.made.length;
    expect(await reserveTransfer(app.orm.em.fork(), app.config, live.id, SALES)).toBe('already-tried');
    expect(twilioFake.made.length).toBe(dialled);
    expect(await app.sql('select transferred_to, reserved_amount::text from calls where id = $1', [live.id])).toEqual([{ transferred_to: null, reserved_amount: reserved }]);
    expect(await app.sql('select kind from ledger_entries where reference = $1', [`call:${live.id}:transfer`])).toEqual([{ kind: 'call_reservation' }]);
    // The one leg that rang is the call's, in its events.
    expect(await app.sql(`select status, detail from call_events where call_id = $1 and status like 'transfer%' order by id`, [live.id])).toEqual([
      { status: 'transferred', detail: { to: SALES, mode: 'warm' } },
      { status: 'transfer_ended', detail: { status: 'no-answer', duration: 0 } },
    ]);
    expect((await live.callEnds()).status).toBe(204);
    const row = await until('ended', () => callRow(live.id), (r) => r.status !== 'in-progress');
    const own = callCost(app.config, live.phone, CALL_SECONDS, true);
    expect(row).toMatchObject({ status: 'completed', hangup_reason: null, transfer_status: 'no-answer', transfer_duration: 0, total_cost: own.total_cost });
    expect(await charges(live.id)).toEqual([{ reference: `call:${live.id}`, amount: new Decimal(own.total_cost).negated().toFixed(4) }]);
    expect(await balance()).toBe(new Decimal(before).minus(own.total_cost).toFixed(4));
  });
});

describe('the caller hangs up before the person’s leg has ended: the leg is ended at Twilio', () => {
  it('while the person’s phone rings: the leg is canceled, and its end charges nothing and brings no assistant back', async () => {
    const before = await balance();
    const live = await transferred();
    expect(twilioFake.statuses.get(live.legSid)).toBe('queued');
    twilioFake.statuses.set(live.legSid, 'ringing');
    expect((await live.callEnds()).status).toBe(204);
    expect(updatesOf(live.legSid)).toEqual([{ Status: 'canceled' }]);
    expect(twilioFake.statuses.get(live.legSid)).toBe('canceled');
    // Twilio reports the leg canceled: nothing is charged for it, and the caller's call (over) gets no new TwiML.
    expect((await live.legStatus('canceled')).status).toBe(204);
    const row = await callRow(live.id);
    expect(row).toMatchObject({ status: 'ended', transfer_status: 'canceled', transfer_duration: 0 });
    expect(row.total_cost).toBe(callCost(app.config, live.phone, CALL_SECONDS, true).total_cost);
    expect((await charges(live.id)).map((c) => c.reference)).toEqual([`call:${live.id}`]);
    expect(await balance()).toBe(new Decimal(before).minus(row.total_cost).toFixed(4));
    expect(updatesOf(live.sid).filter((u) => !u.Twiml?.includes('<Conference'))).toEqual([]);
    // Twilio repeating the caller's end asks nothing more of the leg.
    await live.callEnds();
    expect(updatesOf(live.legSid)).toHaveLength(1);
  });

  it('once the person answered (being briefed, or held in the conference): canceling leaves it, so it is completed; its minutes charged when it reports', async () => {
    const before = await balance();
    const live = await transferred();
    twilioFake.statuses.set(live.legSid, 'in-progress');
    expect((await live.legStatus('in-progress')).status).toBe(204);
    expect((await live.callEnds()).status).toBe(204);
    expect(updatesOf(live.legSid)).toEqual([{ Status: 'canceled' }, { Status: 'completed' }]);
    expect(twilioFake.statuses.get(live.legSid)).toBe('completed');
    expect((await live.legEnds(20)).status).toBe(204);
    const row = await callRow(live.id);
    const leg = callCost(app.config, SALES, 20, true);
    expect(row).toMatchObject({ status: 'ended', transfer_status: 'completed', transfer_duration: 20 });
    expect(row.total_cost).toBe(new Decimal(callCost(app.config, live.phone, CALL_SECONDS, true).total_cost).plus(leg.total_cost).toFixed(4));
    expect(await balance()).toBe(new Decimal(before).minus(row.total_cost).toFixed(4));
  });

  it('while the person is still being dialled (Twilio not yet answering): the leg is canceled once Twilio names it', async () => {
    const live = await answered();
    let release!: () => void;
    twilioFake.creating = new Promise((resolve) => (release = resolve));
    const dialled = twilioFake.made.length;
    const asked = twilioFake.posts().length;
    const transfer = live.transfer();
    try {
      await until('the leg asked for', async () => twilioFake.posts().slice(asked).some((r) => r.url.endsWith('/Calls.json')), (yes) => yes, 20_000);
      expect((await live.callEnds()).status).toBe(204);
      expect((await callRow(live.id)).status).toBe('ended');
    } finally {
      twilioFake.creating = null;
      release();
    }
    await transfer;
    expect(twilioFake.made.length).toBe(dialled + 1);
    const { legSid } = await legOf(live.id);
    expect(updatesOf(legSid)).toEqual([{ Status: 'canceled' }]);
    expect(twilioFake.statuses.get(legSid)).toBe('canceled');
  });
});
