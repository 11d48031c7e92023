import { startTestApp, type TestAccount, type TestApp, NO_VENDORS } from '../helpers/app';
import { until } from '../helpers/dialer';
import { toneFrames, TwilioMediaClient } from '../helpers/media';
import { startFakeRealtime, type FakeRealtime, type RealtimeSession } from '../helpers/realtime';
import { startFakeTwilio, streamParameters, type FakeTwilio } from '../helpers/twilio';
import { fakeEmbeddings, type FakeEmbeddings } from '../helpers/fakes/embeddings';

/**
 * A multimodal assistant with a knowledge base, on the Realtime engine end to end (design.md,
 * "Knowledge bases"): search_knowledge_base is among the session's tools, the model's call of
 * it is answered with the chunk that answers the question, the model's answer reaches the
 * caller, and the search is kept on the answer's turn.
 */
const API_KEY = 'sk-test-realtime-key';

let app: TestApp;
let twilioFake: FakeTwilio;
let realtime: FakeRealtime;
let embeddings: FakeEmbeddings;
let me: TestAccount;
let assistant: number;
let base: number;
const chunks: Record<string, { id: number; document_id: number; content: string }> = {};

const DOCUMENTS = {
  garantia: 'The warranty covers manufacturing defects for twelve months from the date of delivery.',
  pagamento: 'We accept credit cards, bank transfers and PayPal. Invoices are sent by email.',
};

beforeAll(async () => {
  twilioFake = await startFakeTwilio();
  realtime = await startFakeRealtime(API_KEY);
  embeddings = await fakeEmbeddings();
  app = await startTestApp(
    {
      telephony: { provider: 'twilio', simulatorSpeed: 1000, twilio: twilioFake.settings() },
      voice: { openai: { apiKey: API_KEY, realtimeUrl: realtime.url, realtimeModel: 'gpt-realtime', baseUrl: 'http://127.0.0.1:9', postCallModel: 'gpt-4o-mini' }, pipelineEngineUrl: null, pipeline: NO_VENDORS },
      allowPrivateNetworkTargets: true,
      embeddings: { model: 'text-embedding-3-small', url: embeddings.url, apiKey: 'sk-test-embeddings' },
    },
    { workers: true },
  );
  me = await app.account({ balance: '50' });
  base = (await app.request('POST', '/api/user/knowledgebases', { token: me.token, body: { name: 'Shop', language: 'english' } })).body.data.id;
  for (const [name, content] of Object.entries(DOCUMENTS)) {
    expect((await app.request('POST', `/api/user/knowledgebases/${base}/documents`, { token: me.token, body: { name, type: 'text', content } })).status).toBe(201);
  }
  await until('the documents ingested', async () => (await app.request('GET', `/api/user/knowledgebases/${base}`, { token: me.token })).body.data.status, (status) => status === 'ready', 30_000);
  const rows = await app.sql(`select c.id, c.document_id, c.content, d.name from knowledge_chunks c join knowledge_documents d on d.id = c.document_id where c.knowledge_base_id = $1`, [base]);
  for (const row of rows) chunks[row.name] = { id: row.id, document_id: row.document_id, content: row.content };
  const [{ id: voice }] = await app.sql(`select id from voices where name = 'coral' and mode = 'multimodal'`);
  assistant = await app.outboundAssistant(me, {
    engine_type: 'multimodal',
    voice_id: voice,
    llm_model: 'gpt-realtime',
    language: 'English',
    system_prompt: 'You answer the shop’s customers.',
    initial_message: 'Hello, this is Ana from the shop.',
    knowledgebase_id: base,
    record_call: false,
  });
});
afterAll(async () => {
  await app?.close();
  await realtime?.close();
  await twilioFake?.close();
  await embeddings?.close();
});

const callRow = async (id: number) => (await app.sql('select provider_call_id from calls where id = $1', [id]))[0];

/** Places a call of the assistant and opens its media stream and Realtime session. */
async function answered(phone: string) {
  const placed = await app.request('POST', '/api/user/make_call', { token: me.token, body: { phone_number: phone, assistant_id: assistant } });
  expect(placed.status).toBe(200);
  const id = placed.body.call_id as number;
  const { provider_call_id: sid } = await until('placed', () => callRow(id), (row) => row.provider_call_id !== null);
  const twiml = new URLSearchParams(twilioFake.posts().find((r) => new URLSearchParams(r.body).get('To') === phone)!.body).get('Twiml')!;
  await twilioFake.request(app.config.publicUrl, `/telephony/twilio/status?call=${id}`, { CallSid: sid, CallStatus: 'in-progress' });
  const media = await TwilioMediaClient.connect(`${app.config.publicUrl.replace(/^http/, 'ws')}/telephony/twilio/media`);
  media.start(streamParameters(twiml), sid);
  const model: RealtimeSession = await realtime.session();
  const session = await model.next('session.update');
  return { id, sid: sid as string, media, model, session };
}

it('offers search_knowledge_base in the session, answers the model’s call with the right chunk, and keeps the search on the answer’s turn', async () => {
  const { id, sid, media, model, session } = await answered('+5511930007000');
  const offered = session.session.tools.find((tool: any) => tool.name === 'search_knowledge_base');
  expect(offered).toMatchObject({ type: 'function', name: 'search_knowledge_base', parameters: { type: 'object', required: ['query'] } });

  // The caller asks; the model looks it up.
  model.send({ type: 'conversation.item.input_audio_transcription.completed', item_id: 'item_user_1', content_index: 0, transcript: 'How long is the warranty?' });
  const from = model.events.length;
  model.send({ type: 'response.created', response: { id: 'resp_search' } });
  model.send({ type: 'response.function_call_arguments.done', response_id: 'resp_search', item_id: 'item_fc', output_index: 0, call_id: 'call_kb', name: 'search_knowledge_base', arguments: '{"query":"warranty length"}' });
  model.send({ type: 'response.done', response: { id: 'resp_search', status: 'completed' } });
  const output = await model.next('conversation.item.create', from);
  expect(output.item).toMatchObject({ type: 'function_call_output', call_id: 'call_kb' });
  const { results } = JSON.parse(output.item.output);
  expect(results[0]).toEqual({ content: chunks.garantia.content, score: expect.any(Number) });
  await model.next('response.create', from);

  // The answer, written from it, reaches the caller.
  const frames = toneFrames(3, 500);
  model.send({ type: 'response.created', response: { id: 'resp_answer', status: 'in_progress' } });
  for (const delta of frames) model.send({ type: 'response.output_audio.delta', response_id: 'resp_answer', item_id: 'item_answer', output_index: 0, content_index: 0, delta });
  model.send({ type: 'response.output_audio_transcript.done', response_id: 'resp_answer', item_id: 'item_answer', output_index: 0, content_index: 0, transcript: 'The warranty lasts twelve months.' });
  model.send({ type: 'response.done', response: { id: 'resp_answer', status: 'completed' } });
  await until('the answer played', async () => media.messages.filter((m) => m.event === 'media').map((m) => m.media.payload), (sent) => frames.every((frame) => sent.includes(frame)));

  media.stop(sid);
  await model.closed;
  await twilioFake.request(app.config.publicUrl, `/telephony/twilio/status?call=${id}`, { CallSid: sid, CallStatus: 'completed', CallDuration: '9' });
  const res = await until(
    'the turns recorded',
    () => app.graphql(`query ($id: Int!) { call(id: $id) { turns { speaker text retrievals { knowledgebase_id mode query chunks { chunk_id document_id score } } } } }`, { id }, me.token),
    (r) => r.body.data?.call.turns.some((turn: any) => turn.text === 'The warranty lasts twelve months.'),
  );
  const answer = res.body.data.call.turns.find((turn: any) => turn.text === 'The warranty lasts twelve months.');
  expect(answer.speaker).toBe('assistant');
  expect(answer.retrievals).toEqual([{ knowledgebase_id: base, mode: 'function_call', query: 'warranty length', chunks: expect.any(Array) }]);
  expect(answer.retrievals[0].chunks[0]).toEqual({ chunk_id: chunks.garantia.id, document_id: chunks.garantia.document_id, score: expect.any(Number) });
  media.close();
});

it('a search during a call waits at most 800 ms for the question’s vector, then answers by full text (the caller is waiting)', async () => {
  const { id, sid, media, model } = await answered('+5511930007001');
  embeddings.script.push({ kind: 'delay', ms: 5000 });
  const from = model.events.length;
  const asked = Date.now();
  model.send({ type: 'response.created', response: { id: 'resp_slow' } });
  model.send({ type: 'response.function_call_arguments.done', response_id: 'resp_slow', item_id: 'item_slow', output_index: 0, call_id: 'call_slow', name: 'search_knowledge_base', arguments: '{"query":"warranty"}' });
  model.send({ type: 'response.done', response: { id: 'resp_slow', status: 'completed' } });
  const output = await model.next('conversation.item.create', from);
  const waited = Date.now() - asked;
  expect(JSON.parse(output.item.output).results[0]).toEqual({ content: chunks.garantia.content, score: expect.any(Number) });
  expect(embeddings.requests.at(-1)).toMatchObject({ input: ['warranty'] });
  expect(waited).toBeGreaterThanOrEqual(750);
  expect(waited).toBeLessThan(1900); // not the API's 2 s, nor the model's 5 s
  media.stop(sid);
  await model.closed;
  await twilioFake.request(app.config.publicUrl, `/telephony/twilio/status?call=${id}`, { CallSid: sid, CallStatus: 'completed', CallDuration: '3' });
  media.close();
});
