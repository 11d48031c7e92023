import { Messages } from '../../src/errors';
import {
  ENGINE_GRACE_SECONDS,
  ENGINE_MAX_TRANSCRIPT_CHARS,
  ENGINE_MAX_TURN_CHARS,
  ENGINE_MAX_TURNS,
  ENGINE_RATE_LIMIT,
  ENGINE_RATE_WINDOW_MS,
} from '../../src/voice/engine.api';
import { startTestApp, type TestAccount, type TestApp, NO_VENDORS } from '../helpers/app';
import { until } from '../helpers/dialer';
import { startFakeTwilio, type FakeTwilio } from '../helpers/twilio';
import { setTurns, TURNS_COLUMN } from '../helpers/turns';

/**
 * The engine API's bounds: a call's token opens it only while the call lives (and a short
 * grace after it ends, for late turns), a call's transcript has a size, and a call's engine
 * has a request rate. Over real HTTP, against Twilio's fake, as an external engine sees it.
 */
let app: TestApp;
let twilioFake: FakeTwilio;
let me: TestAccount;
let assistant: number;
let seq = 0;

beforeAll(async () => {
  twilioFake = await startFakeTwilio();
  app = await startTestApp(
    {
      telephony: { provider: 'twilio', simulatorSpeed: 1000, twilio: twilioFake.settings() },
      // Nothing listens there: the test is the engine, with the token the TwiML carries.
      voice: { openai: null, pipelineEngineUrl: 'ws://127.0.0.1:9/stream', pipeline: NO_VENDORS },
    },
    { workers: true },
  );
  me = await app.account({ balance: '50' });
  assistant = await app.outboundAssistant(me);
});
afterAll(async () => {
  await app?.close();
  await twilioFake?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const callRow = async (id: number) => (await app.sql(`select provider_call_id, finished_at, transcript, ${TURNS_COLUMN} from calls where id = $1`, [id]))[0];

/** A call placed through Twilio's fake and answered, with what its engine needs to use the engine API. */
async function answered() {
  const phone = `+55119${String(5000 + seq++)}7000`;
  const res = await app.request('POST', '/api/user/make_call', { token: me.token, body: { phone_number: phone, assistant_id: assistant } });
  expect(res.status).toBe(200);
  const id = res.body.call_id as number;
  const { provider_call_id: sid } = await until('placed', () => callRow(id), (row) => row.provider_call_id !== null);
  const twiml = new URLSearchParams(twilioFake.posts().find((r) => new URLSearchParams(r.body).get('To') === phone)!.body).get('Twiml')!;
  const token = /<Parameter name="token" value="([^"]+)"\/>/.exec(twiml)![1];
  const status = (CallStatus: string, extra: Record<string, string> = {}) =>
    twilioFake.request(app.config.publicUrl, `/telephony/twilio/status?call=${id}`, { CallSid: sid, CallStatus, ...extra });
  await status('in-progress');
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  return {
    id,
    get: () => fetch(`${app.config.publicUrl}/engine/calls/${id}`, { headers }),
    event: (body: unknown) => fetch(`${app.config.publicUrl}/engine/calls/${id}/events`, { method: 'POST', headers, body: JSON.stringify(body) }),
    turn: (text: string, speaker = 'customer') => fetch(`${app.config.publicUrl}/engine/calls/${id}/events`, { method: 'POST', headers, body: JSON.stringify({ type: 'turn', speaker, text }) }),
    async complete() {
      expect((await status('completed', { CallDuration: '30' })).status).toBeLessThan(300);
      await until('finished', () => callRow(id), (row) => row.finished_at !== null);
    },
  };
}

/** Turns written straight to the database, as many and as long as the test needs to reach a bound. */
async function fillTurns(id: number, count: number, textOf: (i: number) => string = () => 'sim') {
  const turns = Array.from({ length: count }, (_, i) => ({ speaker: 'customer', text: textOf(i) }));
  await setTurns(app.sql, id, turns);
}

describe('the grace after the call ends', () => {
  it('takes late turns and the end just after the call ended, into the transcript', async () => {
    const call = await answered();
    expect((await call.turn('Olá, aqui é a Ana.', 'assistant')).status).toBe(204);
    await call.complete();

    const late = await call.turn('Tchau, obrigado.');
    expect(late.status).toBe(204);
    expect((await call.event({ type: 'ended', reason: 'customer' })).status).toBe(204);
    expect((await call.get()).status).toBe(200);
    const row = await callRow(call.id);
    expect(row.turns).toEqual([
      { speaker: 'assistant', text: 'Olá, aqui é a Ana.' },
      { speaker: 'customer', text: 'Tchau, obrigado.' },
    ]);
    expect(row.transcript).toBe('Assistente: Olá, aqui é a Ana.\nCliente: Tchau, obrigado.');

    // The grace runs from finished_at, not from the last request.
    await app.sql(`update calls set finished_at = now() - make_interval(secs => $1) where id = $2`, [ENGINE_GRACE_SECONDS - 10, call.id]);
    expect((await call.turn('Ainda dentro do prazo.')).status).toBe(204);
  });

  it('refuses turns, the end and the configuration after the grace, with 409 and nothing written', async () => {
    const call = await answered();
    expect((await call.turn('Olá.', 'assistant')).status).toBe(204);
    await call.complete();
    // As if the call had ended longer ago than the grace (rather than waiting for it).
    await app.sql(`update calls set finished_at = now() - make_interval(secs => $1) where id = $2`, [ENGINE_GRACE_SECONDS + 1, call.id]);
    const before = await callRow(call.id);

    const refused = { message: Messages.engineGraceOver(ENGINE_GRACE_SECONDS), code: 'CONFLICT' };
    const late = await call.turn('Tarde demais.');
    expect(late.status).toBe(409);
    expect(await late.json()).toEqual(refused);
    const ended = await call.event({ type: 'ended', reason: 'silence' });
    expect(ended.status).toBe(409);
    expect(await ended.json()).toEqual(refused);
    const config = await call.get();
    expect(config.status).toBe(409);
    expect(await config.json()).toEqual(refused);

    const after = await callRow(call.id);
    expect(after.turns).toEqual(before.turns);
    expect(after.transcript).toBe(before.transcript);
  });
});

describe('the transcript’s size', () => {
  it('keeps one turn within ENGINE_MAX_TURN_CHARS characters', async () => {
    const call = await answered();
    expect((await call.turn('a'.repeat(ENGINE_MAX_TURN_CHARS))).status).toBe(204);
    const over = await call.turn('b'.repeat(ENGINE_MAX_TURN_CHARS + 1));
    expect(over.status).toBe(422);
    expect(await over.json()).toMatchObject({ code: 'VALIDATION_FAILED', errors: { text: [expect.stringContaining(String(ENGINE_MAX_TURN_CHARS))] } });
    expect((await callRow(call.id)).turns).toHaveLength(1);
  });

  it('takes up to ENGINE_MAX_TURNS turns, then answers 422 and writes nothing', async () => {
    const call = await answered();
    await fillTurns(call.id, ENGINE_MAX_TURNS - 1);
    expect((await call.turn('A última que cabe.')).status).toBe(204);

    const over = await call.turn('Uma a mais.');
    expect(over.status).toBe(422);
    expect(await over.json()).toEqual({ message: Messages.validationFailed, code: 'VALIDATION_FAILED', errors: { text: [Messages.engineTooManyTurns(ENGINE_MAX_TURNS)] } });
    const row = await callRow(call.id);
    expect(row.turns).toHaveLength(ENGINE_MAX_TURNS);
    expect(row.turns.at(-1)).toEqual({ speaker: 'customer', text: 'A última que cabe.' });

    // Nor after the call ended, within the grace (the late turn would join the transcript).
    await call.complete();
    const transcript = (await callRow(call.id)).transcript;
    expect((await call.turn('Tarde, e a mais.')).status).toBe(422);
    expect((await callRow(call.id)).transcript).toBe(transcript);
  });

  it('lets one of concurrent turns take the last place, not all of them', async () => {
    const call = await answered();
    await fillTurns(call.id, ENGINE_MAX_TURNS - 1);
    const statuses = (await Promise.all(Array.from({ length: 10 }, (_, i) => call.turn(`Concorrente ${i}.`)))).map((res) => res.status);
    expect(statuses.sort()).toEqual([204, ...Array(9).fill(422)]);
    expect((await callRow(call.id)).turns).toHaveLength(ENGINE_MAX_TURNS);
  });

  it('takes up to ENGINE_MAX_TRANSCRIPT_CHARS characters of turns in all, then answers 422 and writes nothing', async () => {
    const call = await answered();
    // Turns of the full per-turn size, leaving room for five characters more.
    const full = Math.floor(ENGINE_MAX_TRANSCRIPT_CHARS / ENGINE_MAX_TURN_CHARS);
    await fillTurns(call.id, full, (i) => 'x'.repeat(i === full - 1 ? ENGINE_MAX_TURN_CHARS - 5 : ENGINE_MAX_TURN_CHARS));
    expect((await call.turn('ação!')).status).toBe(204); // five characters (not bytes)

    const over = await call.turn('e');
    expect(over.status).toBe(422);
    expect(await over.json()).toEqual({ message: Messages.validationFailed, code: 'VALIDATION_FAILED', errors: { text: [Messages.engineTranscriptTooLong(ENGINE_MAX_TRANSCRIPT_CHARS)] } });
    const turns = (await callRow(call.id)).turns as { text: string }[];
    expect(turns).toHaveLength(full + 1);
    expect(turns.reduce((sum, turn) => sum + turn.text.length, 0)).toBe(ENGINE_MAX_TRANSCRIPT_CHARS);
  });
});

describe('the rate of a call’s requests', () => {
  it('answers 429 with Retry-After past ENGINE_RATE_LIMIT requests in a window, only for that call, and takes requests again after it', async () => {
    const call = await answered();
    const other = await answered();
    // At the start of a window, so that the burst falls in one (the server runs in this process).
    await sleep(ENGINE_RATE_WINDOW_MS - (Date.now() % ENGINE_RATE_WINDOW_MS) + 5);
    const windowEnd = Date.now() - (Date.now() % ENGINE_RATE_WINDOW_MS) + ENGINE_RATE_WINDOW_MS;
    const burst = await Promise.all(Array.from({ length: ENGINE_RATE_LIMIT + 5 }, () => call.get()));
    expect(burst.filter((res) => res.status === 200)).toHaveLength(ENGINE_RATE_LIMIT);
    const limited = burst.filter((res) => res.status === 429);
    expect(limited).toHaveLength(5);
    const retryAfter = Number(limited[0].headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(await limited[0].json()).toEqual({ message: Messages.rateLimited(retryAfter), code: 'RATE_LIMITED', retry_after: retryAfter });
    // Turns are limited too, and a refused one is not written.
    const turn = await call.turn('Limitada.');
    expect(Date.now()).toBeLessThan(windowEnd); // still the burst's window
    expect(turn.status).toBe(429);

    // Another call's engine is not held back by this one's.
    expect((await other.get()).status).toBe(200);

    await sleep(retryAfter * 1000);
    expect((await call.get()).status).toBe(200);
    expect((await call.turn('De novo.')).status).toBe(204);
    expect((await callRow(call.id)).turns).toEqual([{ speaker: 'customer', text: 'De novo.' }]);
  });
});
