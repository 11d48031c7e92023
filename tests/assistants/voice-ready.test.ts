import { NO_VENDORS, startTestApp, type TestAccount, type TestApp } from '../helpers/app';

/**
 * `voice_ready` / `voice_missing`: what this server lacks for an assistant's engine to speak,
 * by the same rule a call's start reads (src/modules/assistants/assistant.voice.ts).
 */

const OPENAI = { apiKey: 'sk-test', realtimeUrl: 'ws://127.0.0.1:9', realtimeModel: 'gpt-realtime', baseUrl: 'http://127.0.0.1:9', postCallModel: 'gpt-4o-mini' };
const VOICE_FIELDS = `query Voice($id: Int!) { assistant(id: $id) { voice_ready voice_missing } }`;

async function voiceOf(app: TestApp, me: TestAccount, mode: string, provider: string | null): Promise<number> {
  const voices = (await app.request('GET', `/api/user/assistants/voices?mode=${mode}`, { token: me.token })).body;
  const voice = voices.find((v: any) => (provider === null ? true : v.provider === provider));
  if (!voice) throw new Error(`no ${mode} voice of ${provider}`);
  return voice.id;
}

describe('an assistant on a server with no vendor keys', () => {
  let app: TestApp;
  let me: TestAccount;
  beforeAll(async () => {
    app = await startTestApp({ voice: { openai: null, pipelineEngineUrl: null, pipeline: NO_VENDORS } });
    me = await app.account();
  });
  afterAll(() => app?.close());

  it('multimodal: not ready, OPENAI_API_KEY missing (GraphQL and REST)', async () => {
    const id = await app.outboundAssistant(me, { engine_type: 'multimodal', voice_id: await voiceOf(app, me, 'multimodal', null) });
    const res = await app.graphql(VOICE_FIELDS, { id }, me.token);
    expect(res.body.data.assistant).toEqual({ voice_ready: false, voice_missing: ['OPENAI_API_KEY'] });
    const rest = await app.request('GET', `/api/user/assistant/${id}`, { token: me.token });
    expect(rest.body).toMatchObject({ voice_ready: false, voice_missing: ['OPENAI_API_KEY'] });
  });

  it('pipeline with an ElevenLabs voice: Deepgram, the model and the voice vendor named', async () => {
    const id = await app.outboundAssistant(me, { voice_id: await voiceOf(app, me, 'pipeline', 'elevenlabs') });
    const res = await app.graphql(VOICE_FIELDS, { id }, me.token);
    expect(res.body.data.assistant).toEqual({ voice_ready: false, voice_missing: ['DEEPGRAM_API_KEY', 'OPENAI_API_KEY', 'ELEVENLABS_API_KEY'] });
  });

  it('a web call to it is refused with 422 naming the missing variables, and no call is made', async () => {
    const id = await app.outboundAssistant(me, { engine_type: 'multimodal', voice_id: await voiceOf(app, me, 'multimodal', null) });
    const res = await app.request('POST', '/api/user/calls/web', { token: me.token, body: { assistant_id: id } });
    expect(res.status).toBe(422);
    expect(res.body.message).toContain('OPENAI_API_KEY');
    expect(res.body.errors.assistant_id[0]).toContain('OPENAI_API_KEY');
    const gql = await app.graphql('mutation($input: WebCallInput!) { startWebCall(input: $input) { call_id } }', { input: { assistant_id: id } }, me.token);
    expect(gql.body.errors[0]).toMatchObject({ message: expect.stringContaining('OPENAI_API_KEY'), extensions: { code: 'VALIDATION_FAILED' } });
    expect(await app.sql('select id from calls where assistant_id = $1', [id])).toEqual([]);
  });

  it('the list answers it for every assistant', async () => {
    const res = await app.request('GET', '/api/user/assistants', { token: me.token });
    expect(res.body.length).toBeGreaterThan(0);
    for (const assistant of res.body) expect(assistant.voice_ready).toBe(false);
  });
});

describe('an assistant on a server with OPENAI_API_KEY only', () => {
  let app: TestApp;
  let me: TestAccount;
  beforeAll(async () => {
    app = await startTestApp({ voice: { openai: OPENAI, pipelineEngineUrl: null, pipeline: { ...NO_VENDORS, openai: { apiKey: 'sk-test', url: 'http://127.0.0.1:9' } } } });
    me = await app.account();
  });
  afterAll(() => app?.close());

  it('multimodal: ready, nothing missing', async () => {
    const id = await app.outboundAssistant(me, { engine_type: 'multimodal', voice_id: await voiceOf(app, me, 'multimodal', null) });
    const res = await app.graphql(VOICE_FIELDS, { id }, me.token);
    expect(res.body.data.assistant).toEqual({ voice_ready: true, voice_missing: [] });
  });

  it('pipeline: ready, one key being enough (OpenAI transcribes the turns, serves the model and speaks the voice)', async () => {
    const id = await app.outboundAssistant(me, { voice_id: await voiceOf(app, me, 'pipeline', 'elevenlabs') });
    const res = await app.graphql(VOICE_FIELDS, { id }, me.token);
    expect(res.body.data.assistant).toEqual({ voice_ready: true, voice_missing: [] });
  });

  it('pipeline with a transcriber named in STT_PROVIDERS then removed from it: STT_PROVIDERS missing', async () => {
    const id = await app.outboundAssistant(me, { voice_id: await voiceOf(app, me, 'pipeline', 'openai') });
    // Written while a server knew the name; this one does not.
    await app.sql(`update assistants set transcriber = 'whisper' where id = $1`, [id]);
    const res = await app.graphql(VOICE_FIELDS, { id }, me.token);
    expect(res.body.data.assistant).toEqual({ voice_ready: false, voice_missing: ['STT_PROVIDERS'] });
  });
});
