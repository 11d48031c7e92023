import type { AddressInfo } from 'node:net';
import Ajv2020 from 'ajv/dist/2020';
import { WebSocketServer, type WebSocket } from 'ws';
import { getSchema } from '../../src/graphql/schema';
import { buildOpenApi } from '../../src/rest/openapi';
import { routes } from '../../src/rest/routes';
import { startTestApp, type TestAccount, type TestApp, NO_VENDORS } from '../helpers/app';
import { until } from '../helpers/dialer';
import { toneFrames, TwilioMediaClient } from '../helpers/media';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { startFakeTwilio, streamParameters, type FakeTwilio } from '../helpers/twilio';

/**
 * Pipeline assistants: the TwiML streams to PIPELINE_ENGINE_URL, and the engine there runs
 * the call with vozgate's engine API. The fake engine below does what a Pipecat bot
 * configured as the guide says does: on Twilio's `start` it reads the call's configuration
 * with the stream's token, and reports turns, runs a tool and ends the call.
 */
let app: TestApp;
let twilioFake: FakeTwilio;
let tools: Receiver;
let engine: WebSocketServer;
let engineUrl: string;
let me: TestAccount;
let assistant: number;
let seq = 0;
/** What the fake engine learnt and answered, by call id. */
const runs = new Map<number, { config: any; tool: any }>();

beforeAll(async () => {
  twilioFake = await startFakeTwilio();
  tools = await startReceiver();
  engine = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise<void>((resolve) => engine.once('listening', resolve));
  engineUrl = `ws://127.0.0.1:${(engine.address() as AddressInfo).port}/stream`;
  engine.on('connection', (socket: WebSocket) => fakePipelineEngine(socket));
  app = await startTestApp(
    {
      telephony: { provider: 'twilio', simulatorSpeed: 1000, twilio: twilioFake.settings() },
      voice: { openai: null, pipelineEngineUrl: engineUrl, pipeline: NO_VENDORS },
      allowPrivateNetworkTargets: true,
    },
    { workers: true },
  );
  me = await app.account({ balance: '50' });
  const tool = await app.request('POST', '/api/user/tools', {
    token: me.token,
    body: { name: 'book_visit', description: 'Books a visit', endpoint: `${tools.url}/visits`, method: 'GET', timeout: 5, schema: [{ name: 'day', type: 'string', description: 'The day' }] },
  });
  assistant = await app.outboundAssistant(me, {
    system_prompt: 'Você agenda visitas para {{customer_name}}.',
    initial_message: 'Oi {{customer_name}}!',
    tool_ids: [tool.body.data.id],
    variables: { customer_name: 'cliente' },
    keyterms: ['{{customer_name}}', 'visita'],
    pronunciations: [{ word: 'Rui', say_as: 'Ruí' }],
    voicemail_message: 'Oi {{customer_name}}, retorne a ligação.',
  });
});
afterAll(async () => {
  await app?.close();
  await new Promise((resolve) => engine?.close(resolve));
  await tools?.close();
  await twilioFake?.close();
});

/** The engine: Twilio Media Streams in, the engine API out. */
function fakePipelineEngine(socket: WebSocket): void {
  let callId = 0;
  let token = '';
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${app.config.publicUrl}/engine/calls/${callId}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(init.headers ?? {}) },
    });
  socket.on('message', async (data) => {
    const message = JSON.parse(data.toString());
    if (message.event !== 'start') return;
    ({ call_id: callId, token } = { call_id: Number(message.start.customParameters.call_id), token: message.start.customParameters.token });
    const run = { config: (await (await api('')).json()) as any, tool: null as any };
    runs.set(callId, run);
    await api('/events', { method: 'POST', body: JSON.stringify({ type: 'turn', speaker: 'assistant', text: run.config.assistant.initial_message }) });
    await api('/events', { method: 'POST', body: JSON.stringify({ type: 'turn', speaker: 'customer', text: 'Quero marcar para terça.' }) });
    run.tool = await (await api('/tools/book_visit', { method: 'POST', body: JSON.stringify({ day: 'terça' }) })).json();
    await api('/events', { method: 'POST', body: JSON.stringify({ type: 'turn', speaker: 'assistant', text: 'Marcado. Até terça!' }) });
    await api('/events', { method: 'POST', body: JSON.stringify({ type: 'ended', reason: 'end-call-tool' }) });
  });
}

const callRow = async (id: number) => (await app.sql('select status, duration, transcript, tool_calls, provider_call_id from calls where id = $1', [id]))[0];

async function placed(variables: Record<string, unknown> = {}) {
  const phone = `+55119${String(4000 + seq++)}7000`;
  const res = await app.request('POST', '/api/user/make_call', { token: me.token, body: { phone_number: phone, assistant_id: assistant, variables } });
  const id = res.body.call_id as number;
  await until('placed', async () => (await callRow(id)).provider_call_id, (sid) => sid !== null);
  const twiml = new URLSearchParams(twilioFake.posts().find((r) => new URLSearchParams(r.body).get('To') === phone)!.body).get('Twiml')!;
  const parameters = streamParameters(twiml);
  return { id, sid: (await callRow(id)).provider_call_id as string, twiml, parameters };
}

it('streams a pipeline assistant’s call to PIPELINE_ENGINE_URL, whose engine runs it with the engine API', async () => {
  tools.respond = (_request, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"booked":true}');
  };
  const call = await placed({ customer_name: 'Rui' });
  expect(call.twiml).toContain(`<Stream url="${engineUrl}">`);
  await twilioFake.request(app.config.publicUrl, `/telephony/twilio/status?call=${call.id}`, { CallSid: call.sid, CallStatus: 'in-progress' });

  // Twilio connects to the engine, as the TwiML says.
  const media = await TwilioMediaClient.connect(engineUrl);
  media.start(call.parameters, call.sid);
  for (const frame of toneFrames(5)) media.media(frame);
  expect(await twilioFake.hangupOf(call.sid)).toBe('completed');

  const run = runs.get(call.id)!;
  expect(run.config.call).toMatchObject({ id: call.id, type: 'outbound', status: 'in-progress', variables: { customer_name: 'Rui' } });
  expect(run.config.assistant).toMatchObject({
    system_prompt: 'Você agenda visitas para Rui.',
    initial_message: 'Oi Rui!',
    language: 'Portuguese',
    language_code: 'pt',
    tools: [{ type: 'function', name: 'book_visit', parameters: { type: 'object', properties: { day: { type: 'string', description: 'The day' } }, required: ['day'] } }],
    end_call_tool: { name: 'endCall' },
    // The turn-taking and voicemail settings, the call's variables filled.
    keyterms: ['Rui', 'visita'],
    pronunciations: [{ word: 'Rui', say_as: 'Ruí' }],
    backchannel_words: null,
    false_interruption_timeout_ms: 2000,
    voicemail_message: 'Oi Rui, retorne a ligação.',
    voicemail_beep_timeout_seconds: 20,
  });
  expect(run.tool).toMatchObject({ status: 200, response: '{"booked":true}', error: null });
  // As the OpenAPI document describes them.
  const described = buildOpenApi(await getSchema(), routes).paths as Record<string, any>;
  const ajv = new Ajv2020({ strict: false });
  const schemaOf = (path: string, method: string) => described[path][method].responses['200'].content['application/json'].schema;
  expect(ajv.validate(schemaOf('/engine/calls/{id}', 'get'), run.config)).toBe(true);
  expect(ajv.validate(schemaOf('/engine/calls/{id}/tools/{name}', 'post'), run.tool)).toBe(true);
  expect(new URL(tools.requests.at(-1)!.url, 'http://x').searchParams.get('day')).toBe('terça');

  media.stop(call.sid);
  media.close();
  await twilioFake.request(app.config.publicUrl, `/telephony/twilio/status?call=${call.id}`, { CallSid: call.sid, CallStatus: 'completed', CallDuration: '21' });
  const row = await callRow(call.id);
  expect(row).toMatchObject({ status: 'ended_by_assistant', duration: 21 });
  expect(row.transcript).toBe('Assistente: Oi Rui!\nCliente: Quero marcar para terça.\nAssistente: Marcado. Até terça!\nSistema: O assistente encerrou a chamada.');
  expect(row.tool_calls).toEqual([expect.objectContaining({ name: 'book_visit', parameters: { day: 'terça' }, status: 200 })]);
});

it('refuses a wrong token, another call’s token, and bad events; a tool after the call ended is a 409', async () => {
  const call = await placed();
  const other = await placed();
  const get = (id: number, token: string) => fetch(`${app.config.publicUrl}/engine/calls/${id}`, { headers: { authorization: `Bearer ${token}` } });
  expect((await get(call.id, 'not-the-token')).status).toBe(401);
  expect((await get(call.id, other.parameters.token)).status).toBe(401);
  expect((await fetch(`${app.config.publicUrl}/engine/calls/${call.id}`)).status).toBe(401);
  expect((await get(call.id, call.parameters.token)).status).toBe(200);

  const post = (path: string, body: unknown) =>
    fetch(`${app.config.publicUrl}/engine/calls/${call.id}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${call.parameters.token}`, 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const bad = await post('/events', { type: 'turn', speaker: 'robot', text: '' });
  expect(bad.status).toBe(422);
  expect(Object.keys(((await bad.json()) as any).errors).sort()).toEqual(['speaker', 'text']);
  expect((await post('/events', { type: 'ended', reason: 'bored' })).status).toBe(422);
  expect((await post('/events', { type: 'dance' })).status).toBe(422);
  expect((await post('/events', '{not json')).status).toBe(400);
  expect((await post('/tools/no_such_tool', {})).status).toBe(404);
  expect((await fetch(`${app.config.publicUrl}/engine/calls/${call.id}/events`, { headers: { authorization: `Bearer ${call.parameters.token}` } })).status).toBe(405);

  await twilioFake.request(app.config.publicUrl, `/telephony/twilio/status?call=${call.id}`, { CallSid: call.sid, CallStatus: 'busy' });
  const late = await post('/tools/book_visit', { day: 'sexta' });
  expect(late.status).toBe(409);
  expect(await late.json()).toMatchObject({ message: 'A chamada já terminou.', code: 'CONFLICT' });
});
