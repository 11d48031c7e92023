import { startTestApp, type TestAccount, type TestApp, NO_VENDORS } from '../helpers/app';
import { until } from '../helpers/dialer';
import { decodeDtmf } from '../helpers/dtmf';
import { toneFrames, TwilioMediaClient } from '../helpers/media';
import { decode } from '../../src/voice/codecs/mulaw';
import { startFakeRealtime, type FakeRealtime, type RealtimeSession } from '../helpers/realtime';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { startFakeTwilio, streamParameters, type FakeTwilio } from '../helpers/twilio';
import { TURNS_COLUMN } from '../helpers/turns';

/**
 * The built-in voice engine of multimodal assistants, end to end on real sockets: a call
 * placed through a local Twilio Calls API, its media stream opened by a client that speaks
 * Twilio Media Streams with real mu-law frames, bridged to a local fake of the OpenAI
 * Realtime API that checks the session it receives and scripts the model.
 */
const API_KEY = 'sk-test-realtime-key';

let app: TestApp;
let twilioFake: FakeTwilio;
let realtime: FakeRealtime;
let tools: Receiver;
let me: TestAccount;
let assistant: number;
let seq = 0;
/** Every line the app logged, as text. */
const logged: string[] = [];
const errors: unknown[] = [];

beforeAll(async () => {
  twilioFake = await startFakeTwilio();
  realtime = await startFakeRealtime(API_KEY);
  tools = await startReceiver();
  app = await startTestApp(
    {
      telephony: { provider: 'twilio', simulatorSpeed: 1000, twilio: twilioFake.settings() },
      voice: { openai: { apiKey: API_KEY, realtimeUrl: realtime.url, realtimeModel: 'gpt-realtime', baseUrl: 'http://127.0.0.1:9', postCallModel: 'gpt-4o-mini' }, pipelineEngineUrl: null, pipeline: NO_VENDORS },
      allowPrivateNetworkTargets: true,
    },
    {
      workers: true,
      logger: {
        access: (line) => logged.push(`request ${JSON.stringify(line)}`),
        info: (message, fields) => logged.push(`${message} ${JSON.stringify(fields ?? {})}`),
        debug: (message, fields) => logged.push(`${message} ${JSON.stringify(fields ?? {})}`),
        warn: (message, fields) => logged.push(`${message} ${JSON.stringify(fields ?? {})}`),
        error: (message, error, fields) => {
          errors.push(error ?? message);
          logged.push(`${message} ${String(error)} ${JSON.stringify(fields ?? {})}`);
        },
      },
    },
  );
  me = await app.account({ balance: '50' });
  const [{ id: voice }] = await app.sql(`select id from voices where name = 'coral' and mode = 'multimodal'`);
  const tool = await app.request('POST', '/api/user/tools', {
    token: me.token,
    body: {
      name: 'check_order',
      description: 'Looks an order up by its number',
      endpoint: `${tools.url}/orders`,
      method: 'POST',
      timeout: 5,
      headers: [{ name: 'X-Store-Key', value: 'store-secret' }],
      schema: [{ name: 'order_id', type: 'string', description: 'The order number' }],
    },
  });
  expect(tool.status).toBe(201);
  assistant = await app.outboundAssistant(me, {
    engine_type: 'multimodal',
    voice_id: voice,
    llm_model: 'gpt-realtime',
    language: 'Portuguese',
    system_prompt: 'Você confirma o pedido {{order}} de {{customer_name}}. Loja: {{store}}.',
    initial_message: 'Olá {{customer_name}}, aqui é a Ana.',
    who_speaks_first: 'AI assistant',
    variables: { store: 'Loja Centro', customer_name: 'cliente' },
    tool_ids: [tool.body.data.id],
    'end_call_tool.description': 'Encerre quando o cliente confirmar o pedido.',
    endpoint_sensitivity: 3,
    record_call: false,
  });
});
afterAll(async () => {
  await app?.close();
  await realtime?.close();
  await tools?.close();
  await twilioFake?.close();
});

const callRow = async (id: number) =>
  (await app.sql(`select status, duration, transcript, ${TURNS_COLUMN}, tool_calls, provider_call_id, hangup_reason from calls where id = $1`, [id]))[0];
const mediaUrl = () => `${app.config.publicUrl.replace(/^http/, 'ws')}/telephony/twilio/media`;

/** Places a call and answers it: its Twilio sid and the TwiML's stream parameters. */
async function answeredCall(variables: Record<string, unknown> = {}) {
  const phone = `+55119${String(3000 + seq++)}7000`;
  const res = await app.request('POST', '/api/user/make_call', { token: me.token, body: { phone_number: phone, assistant_id: assistant, variables } });
  expect(res.status).toBe(200);
  const id = res.body.call_id as number;
  await until('placed', async () => (await callRow(id)).provider_call_id, (sid) => sid !== null);
  const { provider_call_id: sid } = await callRow(id);
  const twiml = new URLSearchParams(twilioFake.posts().find((r) => new URLSearchParams(r.body).get('To') === phone)!.body).get('Twiml')!;
  const parameters = streamParameters(twiml);
  await status(id, sid, 'in-progress');
  return { id, sid: sid as string, parameters };
}

const status = (id: number, sid: string, callStatus: string, extra: Record<string, string> = {}) =>
  twilioFake.request(app.config.publicUrl, `/telephony/twilio/status?call=${id}`, { CallSid: sid, CallStatus: callStatus, ...extra });

/** Opens the call's media stream as Twilio does, and the Realtime session vozgate opens for it. */
async function stream(call: { sid: string; parameters: Record<string, string> }): Promise<{ media: TwilioMediaClient; model: RealtimeSession }> {
  const media = await TwilioMediaClient.connect(mediaUrl());
  media.start(call.parameters, call.sid);
  const model = await realtime.session();
  await model.next('session.update');
  return { media, model };
}

/** The model says `text` as audio frames of one item, in one response. */
function say(model: RealtimeSession, item: string, frames: string[], text: string, extra: Record<string, unknown>[] = []) {
  model.send({ type: 'response.created', response: { id: `resp_${item}`, status: 'in_progress' } });
  for (const delta of frames) model.send({ type: 'response.output_audio.delta', response_id: `resp_${item}`, item_id: item, output_index: 0, content_index: 0, delta });
  model.send({ type: 'response.output_audio_transcript.done', response_id: `resp_${item}`, item_id: item, output_index: 0, content_index: 0, transcript: text });
  for (const event of extra) model.send(event);
  model.send({ type: 'response.done', response: { id: `resp_${item}`, status: 'completed' } });
}

it('runs a call on the Realtime engine: the session from the assistant, audio both ways, barge-in, a tool, the end-call tool, the transcript', async () => {
  tools.respond = (_request, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"order":"123","status":"shipped"}');
  };
  const call = await answeredCall({ customer_name: 'Marina', order: '123' });
  const { media, model } = await stream(call);

  // The session: the assistant's settings, its prompt with the call's variables over the assistant's.
  expect(model.headers.authorization).toBe(`Bearer ${API_KEY}`);
  expect(model.url).toBe('/?model=gpt-realtime');
  const { session } = await model.next('session.update');
  expect(session).toMatchObject({
    type: 'realtime',
    output_modalities: ['audio'],
    instructions: 'Você confirma o pedido 123 de Marina. Loja: Loja Centro.',
    audio: {
      input: {
        format: { type: 'audio/pcmu' },
        transcription: { model: 'gpt-4o-mini-transcribe', language: 'pt' },
        turn_detection: { type: 'server_vad', threshold: 0.5, create_response: false, interrupt_response: false },
      },
      output: { format: { type: 'audio/pcmu' }, voice: 'coral', speed: 1 },
    },
    tool_choice: 'auto',
  });
  expect(session.tools).toEqual([
    {
      type: 'function',
      name: 'check_order',
      description: 'Looks an order up by its number',
      parameters: { type: 'object', properties: { order_id: { type: 'string', description: 'The order number' } }, required: ['order_id'] },
    },
    { type: 'function', name: 'endCall', description: 'Encerre quando o cliente confirmar o pedido.', parameters: { type: 'object', properties: {}, required: [] } },
    // A phone call: the keypad, for a menu.
    expect.objectContaining({ type: 'function', name: 'press_digits', parameters: expect.objectContaining({ required: ['digits'] }) }),
  ]);

  // The assistant speaks first, with its initial message.
  const opening = await model.next('response.create');
  expect(opening.response.instructions).toContain('"Olá Marina, aqui é a Ana."');
  const hello = toneFrames(3, 660);
  say(model, 'item_hello', hello, 'Olá Marina, aqui é a Ana.');
  for (const payload of hello) await media.next((m) => m.event === 'media' && m.media.payload === payload);
  expect(media.messages.filter((m) => m.event === 'media').every((m) => m.streamSid === media.streamSid)).toBe(true);

  // The caller's audio reaches the model as it was sent: the same mu-law bytes.
  const voice = toneFrames(5, 440);
  const before = model.events.length;
  for (const payload of voice) media.media(payload);
  await until('the caller’s audio', async () => model.events.slice(before).filter((e) => e.type === 'input_audio_buffer.append').map((e) => e.audio), (audio) => audio.length === 5);
  expect(model.events.slice(before).filter((e) => e.type === 'input_audio_buffer.append').map((e) => e.audio)).toEqual(voice);

  // Barge-in: the caller talks over audio Twilio has not played; it is cleared and the item truncated where it was heard.
  media.echoMarks = false;
  const long = toneFrames(10, 550);
  const longSentAt = Date.now();
  say(model, 'item_long', long, 'Seu pedido 123 está...');
  const first = media.messages.indexOf(await media.next((m) => m.event === 'media' && m.media.payload === long[0]));
  const marks = await until('a mark after each frame', async () => media.messages.slice(first).filter((m) => m.event === 'mark'), (found) => found.length === 10);
  media.mark(marks[3].mark.name); // 4 frames of 20 ms heard
  await new Promise((resolve) => setTimeout(resolve, 50));
  const truncatedFrom = model.events.length;
  const speechStartedAt = Date.now();
  model.send({ type: 'input_audio_buffer.speech_started', audio_start_ms: 1000, item_id: 'item_user_1' });
  await media.next((m) => m.event === 'clear');
  const truncate = await model.next('conversation.item.truncate', truncatedFrom);
  expect(truncate).toMatchObject({ item_id: 'item_long', content_index: 0, audio_end_ms: 80 });
  media.echoMarks = true;

  // The caller's words, transcribed (a while after they began); the model calls the tool with its arguments, and gets its answer.
  await new Promise((resolve) => setTimeout(resolve, 600));
  model.send({ type: 'conversation.item.input_audio_transcription.completed', item_id: 'item_user_1', content_index: 0, transcript: 'Sim, é o pedido 123.' });
  const toolFrom = model.events.length;
  model.send({ type: 'response.created', response: { id: 'resp_tool' } });
  model.send({ type: 'response.function_call_arguments.done', response_id: 'resp_tool', item_id: 'item_fc', output_index: 0, call_id: 'call_abc', name: 'check_order', arguments: '{"order_id":"123"}' });
  model.send({ type: 'response.done', response: { id: 'resp_tool', status: 'completed' } });
  const output = await model.next('conversation.item.create', toolFrom);
  expect(output.item).toEqual({ type: 'function_call_output', call_id: 'call_abc', output: JSON.stringify({ status: 200, response: '{"order":"123","status":"shipped"}' }) });
  expect(JSON.parse(tools.requests.at(-1)!.body)).toEqual({ order_id: '123' });
  expect(tools.requests.at(-1)!.headers['x-store-key']).toBe('store-secret');
  await model.next('response.create', toolFrom);

  // The end-call tool: the goodbye is played, then the call is hung up through Twilio.
  const bye = toneFrames(4, 700);
  say(model, 'item_bye', bye, 'Obrigada, Marina. Até logo!', [
    { type: 'response.function_call_arguments.done', response_id: 'resp_item_bye', item_id: 'item_fc2', output_index: 1, call_id: 'call_end', name: 'endCall', arguments: '{}' },
  ]);
  expect(await twilioFake.hangupOf(call.sid)).toBe('completed');
  for (const payload of bye) expect(media.messages.some((m) => m.event === 'media' && m.media.payload === payload)).toBe(true);

  // Twilio ends the stream, then reports the call completed.
  media.stop(call.sid);
  await model.closed;
  await status(call.id, call.sid, 'completed', { CallDuration: '38' });
  const row = await callRow(call.id);
  expect(row).toMatchObject({ status: 'ended_by_assistant', duration: 38 });
  expect(row.transcript).toBe(
    [
      'Assistente: Olá Marina, aqui é a Ana.',
      'Assistente: Seu pedido 123 está...',
      'Cliente: Sim, é o pedido 123.',
      'Assistente: Obrigada, Marina. Até logo!',
      'Sistema: O assistente encerrou a chamada.',
    ].join('\n'),
  );
  expect(row.tool_calls).toEqual([expect.objectContaining({ name: 'check_order', parameters: { order_id: '123' }, status: 200 })]);
  expect(JSON.stringify(row.tool_calls)).not.toContain('store-secret');
  // When each turn began, from the answer: an answer's first audio sent, the caller's speech as the API heard it start.
  const [{ answered }] = await app.sql('select extract(epoch from answered_at) * 1000 as answered from calls where id = $1', [call.id]);
  const at = row.turns.map((t: any) => t.at_ms);
  expect(Math.abs(at[1] - (longSentAt - Number(answered)))).toBeLessThan(300);
  expect(Math.abs(at[2] - (speechStartedAt - Number(answered)))).toBeLessThan(300);
  expect(at[0]).toBeLessThanOrEqual(at[1]);
  expect(at[3]).toBeGreaterThan(at[2]);
  expect(at[4]).toBe(38_000); // the closing note, as the call ended
  media.close();
  expect(errors).toEqual([]);
  // The OpenAI key went to the Realtime API only: never to a log line.
  expect(logged.length).toBeGreaterThan(0);
  expect(logged.join('\n')).not.toContain(API_KEY);
});

describe('the keypad', () => {
  /** A key the caller pressed, as Twilio Media Streams sends it. */
  const dtmf = (media: TwilioMediaClient, digit: unknown) => media.send({ event: 'dtmf', streamSid: media.streamSid, sequenceNumber: '9', dtmf: { track: 'inbound_track', digit } });

  it('the caller’s keys reach the model as the caller’s turn "[keypad] 42" and cut the answer; press_digits plays DTMF pairs into the stream', async () => {
    const call = await answeredCall({ customer_name: 'Marina', order: '7' });
    const { media, model } = await stream(call);
    await model.next('response.create');
    // An answer the caller has not heard yet (marks not echoed): the keys interrupt it.
    media.echoMarks = false;
    const long = toneFrames(10, 550);
    say(model, 'item_menu', long, 'Para vendas, digite 4...');
    await media.next((m) => m.event === 'media' && m.media.payload === long[9]);
    const from = model.events.length;
    for (const digit of ['4', '2', '#']) dtmf(media, digit);
    const item = await model.next('conversation.item.create', from);
    expect(item.item).toEqual({ type: 'message', role: 'user', content: [{ type: 'input_text', text: '[keypad] 42' }] });
    await media.next((m) => m.event === 'clear');
    expect(await model.next('conversation.item.truncate', from)).toMatchObject({ item_id: 'item_menu', audio_end_ms: 0 });
    await model.next('response.create', from);
    media.echoMarks = true;

    // The model presses keys: their tones follow the audio sent, and it is told once they were heard.
    const toolFrom = model.events.length;
    const sentFrom = media.messages.length;
    model.send({ type: 'response.created', response: { id: 'resp_keys' } });
    model.send({ type: 'response.function_call_arguments.done', response_id: 'resp_keys', item_id: 'item_fc', output_index: 0, call_id: 'call_keys', name: 'press_digits', arguments: '{"digits":"1*9"}' });
    model.send({ type: 'response.done', response: { id: 'resp_keys', status: 'completed' } });
    const output = await model.next('conversation.item.create', toolFrom);
    expect(output.item).toEqual({ type: 'function_call_output', call_id: 'call_keys', output: '{"pressed":"1*9"}' });
    const sent = media.messages.slice(sentFrom).filter((m) => m.event === 'media').map((m) => decode(Buffer.from(m.media.payload, 'base64')));
    const audio = new Int16Array(sent.reduce((n, frame) => n + frame.length, 0));
    sent.reduce((at, frame) => (audio.set(frame, at), at + frame.length), 0);
    expect(decodeDtmf(audio, 8000)).toBe('1*9');

    media.stop(call.sid);
    await model.closed;
    await status(call.id, call.sid, 'completed', { CallDuration: '20' });
    const row = await callRow(call.id);
    expect(row.turns.map((t: any) => `${t.speaker}: ${t.text}`)).toEqual(
      expect.arrayContaining(['customer: [keypad] 42', 'assistant: [keypad] 1*9']),
    );
    expect(row.transcript).toContain('Cliente: [keypad] 42');
    media.close();
  });

  it('a dtmf message without a key of 0-9 * # A-D closes the stream (1003), never the process', async () => {
    for (const digit of [null, 5, 'E', undefined]) {
      const call = await answeredCall();
      const { media, model } = await stream(call);
      if (digit === undefined) media.send({ event: 'dtmf', streamSid: media.streamSid, sequenceNumber: '9' });
      else dtmf(media, digit);
      expect((await media.closed).code).toBe(1003);
      await model.closed;
      await status(call.id, call.sid, 'completed', { CallDuration: '3' });
    }
    expect(logged.filter((line) => line.startsWith('voice: refused a media stream') && line.includes('not a DTMF key'))).toHaveLength(4);
    expect(errors).toEqual([]);
  });
});

it('refuses a stream with a wrong token, and a token already used', async () => {
  const call = await answeredCall();
  const forged = await TwilioMediaClient.connect(mediaUrl());
  forged.start({ ...call.parameters, token: call.parameters.token.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')) }, call.sid);
  expect((await forged.closed).code).toBe(1008);
  const other = await TwilioMediaClient.connect(mediaUrl());
  other.start({ ...call.parameters, call_id: String(call.id + 1000) }, call.sid);
  expect((await other.closed).code).toBe(1008);

  const sessions = realtime.sessions.length;
  const { media } = await stream(call);
  const replay = await TwilioMediaClient.connect(mediaUrl());
  replay.start(call.parameters, call.sid);
  expect((await replay.closed).code).toBe(1008);
  expect(realtime.sessions.length).toBe(sessions + 1); // the model was opened for the first stream only
  media.stop(call.sid);
  media.close();
  await until('recorded', async () => (await callRow(call.id)).hangup_reason, (reason) => reason !== null);
  await status(call.id, call.sid, 'completed', { CallDuration: '5' });
  expect((await callRow(call.id)).status).toBe('ended_by_customer');
});

it('a dropped media socket hangs the call up through Twilio', async () => {
  const call = await answeredCall();
  const { media, model } = await stream(call);
  media.close(); // no stop: the connection was lost
  await model.closed;
  expect(await twilioFake.hangupOf(call.sid)).toBe('completed');
  await status(call.id, call.sid, 'completed', { CallDuration: '12' });
  expect(await callRow(call.id)).toMatchObject({ status: 'ended', transcript: 'Sistema: Chamada encerrada: a conexão de áudio caiu.' });
});

it('a stream Twilio stops at max_call_duration (its TimeLimit) ends the call as the time limit, not the caller', async () => {
  const call = await answeredCall();
  const { media, model } = await stream(call);
  await app.sql(`update calls set answered_at = now() - interval '600 seconds' where id = $1`, [call.id]); // the assistant's max_call_duration
  media.stop(call.sid);
  media.close();
  await model.closed;
  await until('recorded', async () => (await callRow(call.id)).hangup_reason, (reason) => reason !== null);
  await status(call.id, call.sid, 'completed', { CallDuration: '600' });
  expect(await callRow(call.id)).toMatchObject({ status: 'ended', transcript: 'Sistema: Chamada encerrada pela plataforma: tempo máximo excedido.' });
});

it('a Realtime API that refuses the session hangs the call up', async () => {
  const call = await answeredCall();
  realtime.refuse = true;
  const media = await TwilioMediaClient.connect(mediaUrl());
  media.start(call.parameters, call.sid);
  try {
    expect(await twilioFake.hangupOf(call.sid)).toBe('completed');
  } finally {
    realtime.refuse = false;
  }
  media.stop(call.sid);
  media.close();
  await status(call.id, call.sid, 'completed', { CallDuration: '3' });
  expect(await callRow(call.id)).toMatchObject({ status: 'ended', transcript: 'Sistema: Chamada encerrada: o motor de voz falhou.' });
});

it('the caller hanging up ends the call as ended_by_customer', async () => {
  const call = await answeredCall();
  const { media, model } = await stream(call);
  model.send({ type: 'conversation.item.input_audio_transcription.completed', item_id: 'u1', content_index: 0, transcript: 'Agora não posso, tchau.' });
  await until('the turn', async () => (await callRow(call.id)).turns, (turns) => turns.length === 1);
  media.stop(call.sid);
  media.close();
  await model.closed;
  await until('recorded', async () => (await callRow(call.id)).hangup_reason, (reason) => reason !== null);
  await status(call.id, call.sid, 'completed', { CallDuration: '9' });
  expect(await callRow(call.id)).toMatchObject({ status: 'ended_by_customer', transcript: 'Cliente: Agora não posso, tchau.\nSistema: O cliente encerrou a chamada.' });
  // Twilio was not asked to hang up: the caller did.
  expect(twilioFake.posts().some((r) => r.url.endsWith(`/Calls/${call.sid}.json`))).toBe(false);
});

it('refuses a frame of the Realtime API that is no event (null, a number, an array, a string, a type that is no text) without throwing, and the call goes on', async () => {
  const call = await answeredCall();
  const { media, model } = await stream(call);
  for (const text of ['null', '5', '[]', '"response.done"', '{"type":7}', 'not json']) model.raw(text);
  model.send({ type: 'conversation.item.input_audio_transcription.completed', item_id: 'u1', content_index: 0, transcript: 'Ainda estou aqui.' });
  await until('the turn', async () => (await callRow(call.id)).turns, (turns) => turns.length === 1);
  media.stop(call.sid);
  media.close();
  await model.closed;
  await until('recorded', async () => (await callRow(call.id)).hangup_reason, (reason) => reason !== null);
  expect((await callRow(call.id)).hangup_reason).toBe('customer');
});

it('a tool run that throws is answered to the model as a tool error, logged, and the model’s turn goes on', async () => {
  // An endpoint no request can be made to: the tool's run throws before any request.
  const [{ endpoint }] = await app.sql(`select endpoint from tools where name = 'check_order'`);
  await app.sql(`update tools set endpoint = 'not a url' where name = 'check_order'`);
  try {
    const call = await answeredCall();
    const { media, model } = await stream(call);
    const from = model.events.length;
    const before = errors.length;
    model.send({ type: 'response.created', response: { id: 'resp_broken' } });
    model.send({ type: 'response.function_call_arguments.done', response_id: 'resp_broken', item_id: 'item_fc', output_index: 0, call_id: 'call_broken', name: 'check_order', arguments: '{"order_id":"9"}' });
    model.send({ type: 'response.done', response: { id: 'resp_broken', status: 'completed' } });
    const output = await model.next('conversation.item.create', from);
    expect(output.item).toEqual({ type: 'function_call_output', call_id: 'call_broken', output: JSON.stringify({ error: 'the tool could not be run' }) });
    await model.next('response.create', from);
    expect(errors.length).toBe(before + 1);
    expect(logged.some((line) => line.startsWith('voice: a tool run failed') && line.includes(`"call_id":${call.id}`))).toBe(true);
    media.stop(call.sid);
    media.close();
    await model.closed;
    await until('recorded', async () => (await callRow(call.id)).hangup_reason, (reason) => reason !== null);
    await status(call.id, call.sid, 'completed', { CallDuration: '4' });
    expect((await callRow(call.id)).status).toBe('ended_by_customer');
  } finally {
    await app.sql('update tools set endpoint = $1 where name = $2', [endpoint, 'check_order']);
  }
});

describe('an assistant the caller speaks to first, that cannot be interrupted, and hangs up on silence', () => {
  let quiet: number;

  beforeAll(async () => {
    const [{ id: voice }] = await app.sql(`select id from voices where name = 'alloy' and mode = 'multimodal'`);
    quiet = await app.outboundAssistant(me, {
      engine_type: 'multimodal',
      voice_id: voice,
      llm_model: 'gpt-4o-mini',
      who_speaks_first: 'Customer',
      allow_interruptions: false,
      endpoint_type: 'ai',
      endpoint_sensitivity: 5,
      re_engagement_interval: 7,
      max_silence_duration: 1,
    });
  });

  it('waits for the caller, keeps talking over them, re-engages after re_engagement_interval, hangs up max_silence_duration later', async () => {
    const previous = assistant;
    assistant = quiet;
    const call = await answeredCall().finally(() => (assistant = previous));
    const { media, model } = await stream(call);
    expect(model.url).toBe('/?model=gpt-realtime'); // llm_model is not a realtime model: OPENAI_REALTIME_MODEL
    const { session } = await model.next('session.update');
    expect(session.audio.input.turn_detection).toEqual({ type: 'semantic_vad', eagerness: 'high', create_response: false, interrupt_response: false });
    expect(session.tools.map((t: { name: string }) => t.name)).toEqual(['endCall', 'press_digits']);

    media.echoMarks = false;
    const words = toneFrames(3, 500);
    say(model, 'item_a', words, 'Pois não?');
    const first = media.messages.indexOf(await media.next((m) => m.event === 'media' && m.media.payload === words[0]));
    model.send({ type: 'input_audio_buffer.speech_started', audio_start_ms: 100, item_id: 'u1' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(media.messages.some((m) => m.event === 'clear')).toBe(false);
    expect(model.events.some((e) => e.type === 'conversation.item.truncate')).toBe(false);
    expect(model.events.some((e) => e.type === 'response.create')).toBe(false); // the caller speaks first
    const marks = await until('marks', async () => media.messages.slice(first).filter((m) => m.event === 'mark'), (found) => found.length === 3);
    media.echoMarks = true;
    const heardAt = Date.now();
    media.mark(marks[2].mark.name);

    const reengage = await model.next('response.create', 0, 12_000);
    expect(Date.now() - heardAt).toBeGreaterThanOrEqual(6_900);
    expect(reengage.response.instructions).toMatch(/still there/);
    say(model, 'item_b', toneFrames(2, 500), 'Você ainda está aí?');
    const saidAt = Date.now();
    expect(await twilioFake.hangupOf(call.sid, 5_000)).toBe('completed');
    expect(Date.now() - saidAt).toBeGreaterThanOrEqual(900);
    media.stop(call.sid);
    media.close();
    await status(call.id, call.sid, 'completed', { CallDuration: '10' });
    expect(await callRow(call.id)).toMatchObject({ status: 'ended', transcript: 'Assistente: Pois não?\nAssistente: Você ainda está aí?\nSistema: Chamada encerrada: o cliente não respondeu.' });
  }, 20_000);
});

describe('barge-in by the assistant’s interrupt settings (the session’s own interruption off)', () => {
  let wordy: number;

  beforeAll(async () => {
    const [{ id: voice }] = await app.sql(`select id from voices where name = 'alloy' and mode = 'multimodal'`);
    // interrupt_sensitivity 5: 150 ms of speech; and three words.
    wordy = await app.outboundAssistant(me, { engine_type: 'multimodal', voice_id: voice, llm_model: 'gpt-realtime', interrupt_sensitivity: 5, use_min_interrupt_words: true, min_interrupt_words: 3 });
  });

  it('speech shorter than interrupt_sensitivity says does nothing; longer speech interrupts once it has said min_interrupt_words words', async () => {
    const previous = assistant;
    assistant = wordy;
    const call = await answeredCall().finally(() => (assistant = previous));
    const { media, model } = await stream(call);
    await model.next('response.create'); // the opening asked for
    media.echoMarks = false;
    const long = toneFrames(25, 550);
    const sentBefore = media.messages.filter((m) => m.event === 'media').length;
    // The answer still being made (no response.done): an interruption cancels it.
    model.send({ type: 'response.created', response: { id: 'resp_long', status: 'in_progress' } });
    for (const delta of long) model.send({ type: 'response.output_audio.delta', response_id: 'resp_long', item_id: 'item_long', output_index: 0, content_index: 0, delta });
    await until('the answer’s audio sent', async () => media.messages.filter((m) => m.event === 'media').length - sentBefore, (n) => n === long.length);
    const cleared = () => media.messages.some((m) => m.event === 'clear');

    // A click: speech that stops within 100 ms.
    model.send({ type: 'input_audio_buffer.speech_started', audio_start_ms: 1000, item_id: 'u_click' });
    model.send({ type: 'input_audio_buffer.speech_stopped', audio_end_ms: 1080, item_id: 'u_click' });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(cleared()).toBe(false);

    // Long enough, but one word, then two: not yet; the third word interrupts.
    model.send({ type: 'input_audio_buffer.speech_started', audio_start_ms: 2000, item_id: 'u_words' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    model.send({ type: 'conversation.item.input_audio_transcription.delta', item_id: 'u_words', content_index: 0, delta: 'Espera ' });
    model.send({ type: 'conversation.item.input_audio_transcription.delta', item_id: 'u_words', content_index: 0, delta: 'aí ' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(cleared()).toBe(false);
    const from = model.events.length;
    model.send({ type: 'conversation.item.input_audio_transcription.delta', item_id: 'u_words', content_index: 0, delta: 'moça' });
    await media.next((m) => m.event === 'clear');
    await model.next('response.cancel', from);
    expect(await model.next('conversation.item.truncate', from)).toMatchObject({ item_id: 'item_long', content_index: 0 });
    media.stop(call.sid);
    media.close();
    await status(call.id, call.sid, 'completed');
  });

  it('an acknowledgement or a cough over the answer is no turn: the session never answers it by itself, and a barge-in is answered once its speech stops', async () => {
    const previous = assistant;
    assistant = wordy;
    const call = await answeredCall().finally(() => (assistant = previous));
    const { media, model } = await stream(call);
    await model.next('response.create'); // the opening asked for
    media.echoMarks = false; // the answer is still being heard
    const answer = toneFrames(25, 550);
    say(model, 'item_answer', answer, 'Temos três planos.');
    await until('the answer’s audio sent', async () => media.messages.filter((m) => m.event === 'media').length, (n) => n >= answer.length);
    const from = model.events.length;

    // "Aham", long enough to interrupt by time (150 ms) but one word of the three asked; then a cough.
    model.send({ type: 'input_audio_buffer.speech_started', audio_start_ms: 1000, item_id: 'u_aham' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    model.send({ type: 'conversation.item.input_audio_transcription.delta', item_id: 'u_aham', content_index: 0, delta: 'Aham.' });
    model.vadStop('u_aham', 1400);
    model.send({ type: 'input_audio_buffer.speech_started', audio_start_ms: 2000, item_id: 'u_cough' });
    model.vadStop('u_cough', 2080);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(model.autoResponses).toEqual([]);
    expect(model.events.slice(from).map((e) => e.type)).not.toContain('response.create');
    expect(media.messages.some((m) => m.event === 'clear')).toBe(false);

    // A barge-in: the answer cut, and the caller's turn answered once it is committed.
    model.send({ type: 'input_audio_buffer.speech_started', audio_start_ms: 3000, item_id: 'u_real' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    model.send({ type: 'conversation.item.input_audio_transcription.delta', item_id: 'u_real', content_index: 0, delta: 'Espera aí moça' });
    await media.next((m) => m.event === 'clear');
    model.vadStop('u_real', 3900);
    await model.next('response.create', from, 3000);
    expect(model.autoResponses).toEqual([]);
    media.stop(call.sid);
    media.close();
    await status(call.id, call.sid, 'completed');
  });
});
