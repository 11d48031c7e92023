/**
 * @jest-environment ./tests/setup/native-addons-environment.js
 *
 * @ci-once pipeline calls in real time; the hosted servers' clients and the configuration run on every Node (stt-openai, tts-openai, config)
 */
import { phrases } from '../../src/voice/engines/pipeline/phrases';
import { speech } from '../helpers/caller';
import { until } from '../helpers/dialer';
import { NO_VENDORS } from '../helpers/app';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fakes/openai';
import { DEEPGRAM_KEY, OPENAI_KEY, pastTheOpeningWait, PipelineCalls, type LiveCall } from '../helpers/pipeline-calls';

/**
 * Vendors a customer hosts, and one key being enough (design.md, "Vendors you host"), end to
 * end on real sockets as tests/voice/llm-fallback.test.ts: a hosted TTS (a second fake OpenAI
 * on its own port, as a Kokoro server) and a hosted STT (the same, as a Whisper server) each
 * carry a whole call; a server with only OPENAI_API_KEY carries one too.
 */
jest.setTimeout(60_000);

const HOSTED_KEY = 'hosted-key-0123456789';

/** Whether vozgate sent the caller sound (not only mu-law silence) among its media frames. */
const heardSound = (live: LiveCall) => live.heard().some((payload) => Buffer.from(payload, 'base64').some((byte) => byte !== 0xff && byte !== 0x7f));

const turnsOf = async (calls: PipelineCalls, id: number, n: number) =>
  (await until(`${n} turns`, () => calls.callRow(id), (row) => row.turns.length >= n, 30_000)).turns.map((t: any) => [t.speaker, t.text]);

describe('a server with Deepgram, OpenAI, a hosted TTS (kokoro) and a hosted STT (whisper)', () => {
  let calls: PipelineCalls;
  let hosted: FakeOpenAi;

  beforeAll(async () => {
    hosted = await startFakeOpenAi(HOSTED_KEY);
    hosted.anyVoice = true;
    calls = await PipelineCalls.start(({ deepgram, openai }) => ({
      ...NO_VENDORS,
      deepgram: { apiKey: DEEPGRAM_KEY, url: deepgram.url },
      openai: { apiKey: OPENAI_KEY, url: openai.url },
      ttsProviders: { kokoro: { apiKey: HOSTED_KEY, url: hosted.url, model: 'kokoro', sampleRate: 24000 } },
      sttProviders: { whisper: { apiKey: HOSTED_KEY, url: hosted.url, model: 'Systran/faster-whisper-small' } },
    }));
  });
  afterAll(async () => {
    await calls?.close();
    await hosted?.close();
  });
  afterEach(() => {
    calls.reset();
    hosted.transcriptions.length = 0;
  });

  const voice = async (provider: string, id: string) =>
    (await calls.app.sql(`insert into voices (name, mode, provider, provider_voice_id) values ($1, 'pipeline', $2, $3) returning id`, [`${provider} ${id}`, provider, id]))[0].id as number;

  it('a voice of the hosted TTS speaks a whole call there, with the provider’s model, at its rate; OpenAI speaks none of it', async () => {
    const assistant = await calls.assistantWith({ voice_id: await voice('kokoro', 'af_bella') });
    const before = { hosted: hosted.speechRequests.length, openai: calls.openai.speechRequests.length };
    const live = await calls.call(assistant);
    calls.deepgram.transcripts.push('Quero saber do meu pedido');
    calls.openai.chat.push({ text: 'Seu pedido foi enviado ontem.' });
    // The apology kept for a dead TTS is synthesised beside the opening (pipeline/apology.ts): what the line heard is the rest.
    const said = () => hosted.speechRequests.slice(before.hosted).filter((r) => r.body.input !== phrases('pt').apology);
    await until('the opening spoken', async () => said().length > 0, Boolean, 20_000);
    await pastTheOpeningWait();
    await live.caller.say(speech());
    expect(await turnsOf(calls, live.id, 3)).toEqual([
      ['assistant', 'Olá cliente, aqui é a Ana.'],
      ['customer', 'Quero saber do meu pedido'],
      ['assistant', 'Seu pedido foi enviado ontem.'],
    ]);
    const spoken = said();
    expect(spoken.map((r) => r.body.input)).toEqual(['Olá cliente, aqui é a Ana.', 'Seu pedido foi enviado ontem.']);
    for (const request of spoken) expect(request.body).toMatchObject({ model: 'kokoro', voice: 'af_bella', response_format: 'pcm' });
    expect(calls.openai.speechRequests.length).toBe(before.openai);
    expect(heardSound(live)).toBe(true);
    await calls.hangUp(live);
    expect((await until('ended', () => calls.callRow(live.id), (r) => r.hangup_reason !== null)).hangup_reason).toBe('customer');
  });

  it('a voice whose hosted TTS was removed from the configuration is spoken by the first configured vendor’s default voice', async () => {
    const assistant = await calls.assistantWith({ voice_id: await voice('piper', 'pt_BR-faber') });
    const shown = await calls.app.request('GET', `/api/user/assistant/${assistant}`, { token: calls.me.token });
    expect(shown.body).toMatchObject({ voice_ready: true, voice_missing: [] });
    const before = calls.openai.speechRequests.length;
    const live = await calls.call(assistant);
    const said = async () => calls.openai.speechRequests.slice(before).filter((r) => r.body.input !== phrases('pt').apology);
    const [opening] = await until('the opening spoken', said, (r) => r.length > 0, 20_000);
    expect(opening.body).toMatchObject({ model: 'gpt-4o-mini-tts', voice: 'alloy', input: 'Olá cliente, aqui é a Ana.' });
    await calls.hangUp(live);
  });

  it('the hosted STT hears a whole call: each turn the VAD found is posted as a 16 kHz WAV in the assistant’s language; Deepgram is not opened', async () => {
    const assistant = await calls.assistantWith({ transcriber: 'whisper', who_speaks_first: 'Customer' });
    const sessions = calls.deepgram.sessions.length;
    const asked = hosted.transcriptionRequests.length;
    const chats = calls.openai.chatRequests.length;
    hosted.transcriptions.push('Alô, quem fala?', 'Quero saber do meu pedido.');
    calls.openai.chat.push({ text: 'Aqui é a Ana, da loja.' }, { text: 'Seu pedido foi enviado ontem.' });
    const live = await calls.call(assistant);
    await pastTheOpeningWait();
    await live.caller.say(speech());
    await until('the first answer spoken', async () => calls.speechInputs(), (inputs) => inputs.includes('Aqui é a Ana, da loja.'), 20_000);
    await new Promise((resolve) => setTimeout(resolve, 2500)); // the answer is heard to its end
    await live.caller.say(speech());
    expect(await turnsOf(calls, live.id, 4)).toEqual([
      ['customer', 'Alô, quem fala?'],
      ['assistant', 'Aqui é a Ana, da loja.'],
      ['customer', 'Quero saber do meu pedido.'],
      ['assistant', 'Seu pedido foi enviado ontem.'],
    ]);
    const posted = hosted.transcriptionRequests.slice(asked);
    expect(posted).toHaveLength(2);
    const seconds = speech().length * 0.02;
    for (const turn of posted) {
      expect(turn).toMatchObject({ model: 'Systran/faster-whisper-small', language: 'pt', responseFormat: 'json' });
      // The turn's speech, from the VAD's start (a short lead) to its end of turn (the silence that ended it).
      expect(turn.seconds).toBeGreaterThan(seconds - 0.3);
      expect(turn.seconds).toBeLessThan(seconds + 2.5);
      expect(turn.rms).toBeGreaterThan(300);
    }
    expect(calls.openai.chatRequests[chats].body.messages.at(-1)).toEqual({ role: 'user', content: 'Alô, quem fala?' });
    expect(calls.deepgram.sessions.length).toBe(sessions);
    await calls.hangUp(live);
    expect((await until('ended', () => calls.callRow(live.id), (r) => r.hangup_reason !== null)).hangup_reason).toBe('customer');
  });

  it('a hosted STT that fails ends the call as stt-failed, with the apology', async () => {
    const assistant = await calls.assistantWith({ transcriber: 'whisper', who_speaks_first: 'Customer' });
    hosted.transcriptions.push({ status: 500 });
    const live = await calls.call(assistant);
    await pastTheOpeningWait();
    await live.caller.say(speech());
    await until('hung up', async () => calls.hungUp(live), Boolean, 20_000);
    expect(calls.speechInputs().some((input) => input.startsWith('Desculpe, estamos com um problema técnico'))).toBe(true);
    expect((await until('ended', () => calls.callRow(live.id), (r) => r.hangup_reason !== null)).hangup_reason).toBe('stt-failed');
    await calls.hangUp(live);
  });

  it('takes transcriber deepgram, openai or a configured name; refuses another with 422 naming transcriber, writing nothing (REST and GraphQL)', async () => {
    const assistant = await calls.assistantWith({ transcriber: 'WHISPER' });
    const stored = async () => (await calls.app.sql('select transcriber from assistants where id = $1', [assistant]))[0].transcriber;
    expect(await stored()).toBe('whisper');
    const update = (transcriber: unknown) => calls.app.request('PUT', `/api/user/assistant/${assistant}`, { token: calls.me.token, body: { transcriber } });
    for (const bad of ['speechmatics', '', null]) {
      const refused = await update(bad);
      expect([bad, refused.status, Object.keys(refused.body.errors ?? {})]).toEqual([bad, 422, ['transcriber']]);
    }
    expect((await update('speechmatics')).body.errors.transcriber[0]).toContain('deepgram, openai, whisper');
    expect(await stored()).toBe('whisper');
    expect((await update('openai')).status).toBe(200);
    expect((await calls.app.request('GET', `/api/user/assistant/${assistant}`, { token: calls.me.token })).body).toMatchObject({ transcriber: 'openai', voice_ready: true });
    const gql = await calls.app.graphql(
      'mutation($id: Int!, $input: UpdateAssistantInput!) { updateAssistant(id: $id, input: $input) { transcriber } }',
      { id: assistant, input: { transcriber: 'azure' } },
      calls.me.token,
    );
    expect(gql.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', errors: { transcriber: [expect.any(String)] } });
    expect(await stored()).toBe('openai');
  });

  it('lists the hosted servers after the built-in vendors', async () => {
    const list = async (path: string) => (await calls.app.request('GET', `/api/user/assistants/${path}`, { token: calls.me.token })).body.map((p: any) => p.code);
    expect(await list('synthesizer-providers')).toEqual(['openai', 'kokoro']);
    expect(await list('transcriber-providers')).toEqual(['deepgram', 'openai', 'whisper']);
  });
});

describe('a server with OPENAI_API_KEY only', () => {
  let calls: PipelineCalls;

  beforeAll(async () => {
    calls = await PipelineCalls.start(({ openai }) => ({ ...NO_VENDORS, openai: { apiKey: OPENAI_KEY, url: openai.url } }));
  });
  afterAll(() => calls?.close());

  it('carries a whole call of an assistant with the defaults (transcriber deepgram, an ElevenLabs voice): OpenAI transcribes, answers and speaks', async () => {
    const [elevenlabs] = await calls.app.sql(`select id from voices where provider = 'elevenlabs' order by id limit 1`);
    const assistant = await calls.assistantWith({ voice_id: elevenlabs.id });
    const shown = await calls.app.request('GET', `/api/user/assistant/${assistant}`, { token: calls.me.token });
    expect(shown.body).toMatchObject({ transcriber: 'deepgram', voice_ready: true, voice_missing: [] });
    calls.openai.transcriptions.push('Quero saber do meu pedido.');
    calls.openai.chat.push({ text: 'Seu pedido foi enviado ontem.' });
    const live = await calls.call(assistant);
    await until('the opening spoken', async () => calls.speechInputs(), (inputs) => inputs.includes('Olá cliente, aqui é a Ana.'), 20_000);
    await pastTheOpeningWait();
    await live.caller.say(speech());
    expect(await turnsOf(calls, live.id, 3)).toEqual([
      ['assistant', 'Olá cliente, aqui é a Ana.'],
      ['customer', 'Quero saber do meu pedido.'],
      ['assistant', 'Seu pedido foi enviado ontem.'],
    ]);
    expect(calls.openai.transcriptionRequests[0]).toMatchObject({ model: 'gpt-4o-mini-transcribe', language: 'pt', responseFormat: 'json' });
    expect(calls.openai.speechRequests[0].body).toMatchObject({ model: 'gpt-4o-mini-tts', voice: 'alloy' });
    expect(calls.deepgram.sessions).toEqual([]);
    expect(heardSound(live)).toBe(true);
    await calls.hangUp(live);
    expect((await until('ended', () => calls.callRow(live.id), (r) => r.hangup_reason !== null)).hangup_reason).toBe('customer');
  });

  it('lists OpenAI as the transcriber and the synthesizer', async () => {
    const list = async (path: string) => (await calls.app.request('GET', `/api/user/assistants/${path}`, { token: calls.me.token })).body;
    expect(await list('transcriber-providers')).toEqual([{ id: 2, name: 'OpenAI', code: 'openai' }]);
    expect(await list('synthesizer-providers')).toEqual([{ id: 3, name: 'OpenAI', code: 'openai' }]);
  });
});
