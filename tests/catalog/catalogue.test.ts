import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { NO_VENDORS, startTestApp, type TestAccount, type TestApp } from '../helpers/app';

/**
 * The voice catalogue names the vendor that speaks each voice (`provider`, `provider_voice_id`),
 * the operator adds such voices with `voice:add`, and the two lists of the original platform's
 * MCP server tell which speech vendors this server is configured with.
 */
const cli = path.resolve(__dirname, '../../dist/src/cli/index.js');
const KEY = 'sk-catalogue-test-key-never-shown';

let app: TestApp;
let withVendors: TestApp;
let me: TestAccount;

beforeAll(async () => {
  if (!existsSync(cli)) throw new Error('dist/ is missing: run the tests with `npm test`, which builds first');
  [app, withVendors] = await Promise.all([
    startTestApp({ voice: { openai: null, pipelineEngineUrl: null, pipeline: NO_VENDORS } }),
    startTestApp({
      voice: {
        openai: null,
        pipelineEngineUrl: null,
        pipeline: {
          ...NO_VENDORS,
          deepgram: { apiKey: KEY, url: 'ws://127.0.0.1:9/v1/listen' },
          cartesia: { apiKey: KEY, url: 'ws://127.0.0.1:9' },
          openai: { apiKey: KEY, url: 'http://127.0.0.1:9/v1' },
        },
      },
    }),
  ]);
  me = await app.account();
});
afterAll(async () => {
  await app?.close();
  await withVendors?.close();
});

const voices = async (query = '') => (await app.request('GET', `/api/user/assistants/voices${query}`, { token: me.token })).body as any[];

/** The constraint a statement broke, or null when it ran. */
async function brokenConstraint(sql: string): Promise<string | null> {
  try {
    await app.sql(sql);
    return null;
  } catch (error) {
    return (error as { constraint?: string }).constraint ?? String(error);
  }
}

describe('the voices table', () => {
  it('refuses a vendor without its voice id, a voice id without its vendor, an unknown vendor and an id out of bounds', async () => {
    const insert = (provider: string, id: string) => `insert into voices (name, mode, provider, provider_voice_id) values ('X', 'pipeline', ${provider}, ${id})`;
    expect(await brokenConstraint(insert(`'cartesia'`, 'null'))).toBe('voices_provider_pair_check');
    expect(await brokenConstraint(insert('null', `'abc'`))).toBe('voices_provider_pair_check');
    expect(await brokenConstraint(insert(`'Azure TTS'`, `'abc'`))).toBe('voices_provider_check');
    expect(await brokenConstraint(insert(`'openai'`, `''`))).toBe('voices_provider_voice_id_check');
    expect(await brokenConstraint(insert(`'openai'`, `'${'x'.repeat(101)}'`))).toBe('voices_provider_voice_id_check');
    const [{ n }] = await app.sql(`select count(*)::int as n from voices where name = 'X'`);
    expect(n).toBe(0);
  });
});

describe('the catalogue', () => {
  it('lists the seeded voices of each vendor with the vendor’s id, and the voices it had with none', async () => {
    const pipeline = await voices('?mode=pipeline');
    for (const voice of pipeline) expect(Object.keys(voice)).toEqual(['id', 'name', 'mode', 'provider', 'provider_voice_id']);
    const of = (provider: string) => pipeline.filter((v) => v.provider === provider);
    expect(of('elevenlabs')).toHaveLength(21);
    expect(of('cartesia')).toHaveLength(26);
    expect(of('openai').map((v) => v.provider_voice_id)).toEqual(['alloy', 'ash', 'ballad', 'cedar', 'coral', 'echo', 'fable', 'marin', 'nova', 'onyx', 'sage', 'shimmer', 'verse']);
    // The ids as each vendor writes them: ElevenLabs' 20 letters and digits, Cartesia's UUIDs.
    expect(of('elevenlabs').every((v) => /^[A-Za-z0-9]{20}$/.test(v.provider_voice_id))).toBe(true);
    expect(of('cartesia').every((v) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(v.provider_voice_id))).toBe(true);
    expect(new Set(pipeline.filter((v) => v.provider).map((v) => `${v.provider}:${v.provider_voice_id}`)).size).toBe(21 + 26 + 13);
    expect(pipeline).toContainEqual({ id: expect.any(Number), name: 'Sarah', mode: 'pipeline', provider: 'elevenlabs', provider_voice_id: 'EXAVITQu4vr4xnSDxMaL' });
    expect(pipeline).toContainEqual({ id: expect.any(Number), name: 'Pleasant Brazilian Lady', mode: 'pipeline', provider: 'cartesia', provider_voice_id: '700d1ee3-a641-4018-ba6e-899dcadc9e2b' });
    expect(pipeline.find((v) => v.name === 'Camila')).toEqual({ id: 1, name: 'Camila', mode: 'pipeline', provider: null, provider_voice_id: null });
    const multimodal = await voices('?mode=multimodal');
    expect(multimodal.every((v) => v.provider === null && v.provider_voice_id === null)).toBe(true);
  });

  it('answers the same over GraphQL', async () => {
    const res = await app.graphql(`{ voices(mode: "pipeline") { name provider provider_voice_id } }`, {}, me.token);
    expect(res.body.data.voices).toContainEqual({ name: 'marin', provider: 'openai', provider_voice_id: 'marin' });
    expect(res.body.data.voices).toContainEqual({ name: 'Thiago', provider: null, provider_voice_id: null });
  });

  it('gives an assistant a seeded voice', async () => {
    const george = (await voices()).find((v) => v.provider_voice_id === 'JBFqnCBsd6RMkjVDRZzb');
    const assistant = await app.outboundAssistant(me, { voice_id: george.id });
    const read = await app.request('GET', `/api/user/assistant/${assistant}`, { token: me.token });
    expect(read.body.voice_id).toBe(george.id);
  });
});

describe('voice:add', () => {
  /** The CLI on the test app's database: its exit code, its JSON answer or error. */
  const runWith = (env: Record<string, string>, ...args: string[]) =>
    new Promise<{ code: number; out: any; error: string | null }>((resolve) => {
      execFile(process.execPath, [cli, 'voice:add', ...args], { env: { ...process.env, DATABASE_URL: app.databaseUrl, ...env } }, (failure, stdout, stderr) => {
        const lastLine = stderr.trim().split('\n').pop() ?? '';
        resolve({
          code: failure ? Number((failure as { code?: number }).code ?? 1) : 0,
          out: stdout ? JSON.parse(stdout) : null,
          error: failure && lastLine.startsWith('{') ? JSON.parse(lastLine).error : null,
        });
      });
    });
  const run = (...args: string[]) => runWith({}, ...args);

  it('adds a voice spoken by a hosted server of TTS_PROVIDERS, a name only a server configured with it takes', async () => {
    const hosted = { TTS_PROVIDERS: '{"kokoro":{"base_url":"http://127.0.0.1:9/v1","model":"kokoro"}}' };
    const added = await runWith(hosted, '--name', 'Kokoro Bella', '--mode', 'pipeline', '--provider', 'kokoro', '--provider-voice-id', 'af_bella');
    expect(added).toMatchObject({ code: 0, error: null, out: { name: 'Kokoro Bella', provider: 'kokoro', provider_voice_id: 'af_bella' } });
    expect(await voices('?mode=pipeline')).toContainEqual({ id: added.out.id, name: 'Kokoro Bella', mode: 'pipeline', provider: 'kokoro', provider_voice_id: 'af_bella' });
    const refused = await run('--name', 'Kokoro Bella', '--mode', 'pipeline', '--provider', 'kokoro', '--provider-voice-id', 'af_bella');
    expect([refused.code, refused.error]).toEqual([1, '--provider must be one of: elevenlabs, cartesia, openai']);
  });

  it('adds a voice spoken by a vendor’s voice, and one without as before', async () => {
    const [spoken, plain] = await Promise.all([
      run('--name', 'Ana Paula', '--mode', 'pipeline', '--provider', 'cartesia', '--provider-voice-id', '700d1ee3-a641-4018-ba6e-899dcadc9e2b'),
      run('--name', 'Nova', '--mode', 'pipeline', '--account', String(me.accountId)),
    ]);
    expect(spoken).toMatchObject({ code: 0, error: null });
    expect(spoken.out).toEqual({ id: expect.any(Number), name: 'Ana Paula', mode: 'pipeline', provider: 'cartesia', provider_voice_id: '700d1ee3-a641-4018-ba6e-899dcadc9e2b', public: true });
    expect(plain.out).toEqual({ id: expect.any(Number), name: 'Nova', mode: 'pipeline', public: false });
    const listed = await voices();
    expect(listed).toContainEqual({ id: spoken.out.id, name: 'Ana Paula', mode: 'pipeline', provider: 'cartesia', provider_voice_id: '700d1ee3-a641-4018-ba6e-899dcadc9e2b' });
    expect(listed).toContainEqual({ id: plain.out.id, name: 'Nova', mode: 'pipeline', provider: null, provider_voice_id: null });
  });

  it('refuses a vendor without a voice id, a voice id without a vendor, an unknown vendor and an over-long id, adding nothing', async () => {
    const [before] = await app.sql(`select count(*)::int as n from voices`);
    const results = await Promise.all([
      run('--name', 'A', '--mode', 'pipeline', '--provider', 'elevenlabs'),
      run('--name', 'B', '--mode', 'pipeline', '--provider-voice-id', 'EXAVITQu4vr4xnSDxMaL'),
      run('--name', 'C', '--mode', 'pipeline', '--provider', 'azure', '--provider-voice-id', 'en-US-JennyNeural'),
      run('--name', 'D', '--mode', 'pipeline', '--provider', 'openai', '--provider-voice-id', 'x'.repeat(101)),
    ]);
    expect(results.map((r) => [r.code, r.out, r.error])).toEqual([
      [1, null, 'give --provider and --provider-voice-id together, or neither'],
      [1, null, 'give --provider and --provider-voice-id together, or neither'],
      // The English CLI speaks English, fields named as its flags (issue 44).
      [1, null, '--provider must be one of: elevenlabs, cartesia, openai'],
      [1, null, '--provider-voice-id must be at most 100 characters'],
    ]);
    const [after] = await app.sql(`select count(*)::int as n from voices`);
    expect(after.n).toBe(before.n);
  });
});

describe('the speech vendors', () => {
  const paths = ['/api/user/assistants/synthesizer-providers', '/api/user/assistants/transcriber-providers'];

  it('are none on a server with no vendor key', async () => {
    for (const url of paths) {
      const res = await app.request('GET', url, { token: me.token });
      expect([url, res.status, res.body]).toEqual([url, 200, []]);
    }
    const res = await app.graphql(`{ synthesizerProviders { id } transcriberProviders { id } }`, {}, me.token);
    expect(res.body.data).toEqual({ synthesizerProviders: [], transcriberProviders: [] });
  });

  it('are those with a key, as the original platform lists providers, the default voice’s vendor first', async () => {
    const account = await withVendors.account();
    const synthesizers = await withVendors.request('GET', paths[0], { token: account.token });
    expect(synthesizers.body).toEqual([
      { id: 2, name: 'Cartesia', code: 'cartesia' },
      { id: 3, name: 'OpenAI', code: 'openai' },
    ]);
    const transcribers = await withVendors.request('GET', paths[1], { token: account.token });
    expect(transcribers.body).toEqual([
      { id: 1, name: 'Deepgram', code: 'deepgram' },
      { id: 2, name: 'OpenAI', code: 'openai' },
    ]);
    expect(synthesizers.text + transcribers.text).not.toContain(KEY);
    const res = await withVendors.graphql(`{ synthesizerProviders { code } transcriberProviders { code } }`, {}, account.token);
    expect(res.body.data).toEqual({ synthesizerProviders: [{ code: 'cartesia' }, { code: 'openai' }], transcriberProviders: [{ code: 'deepgram' }, { code: 'openai' }] });
  });

  it('list the hosted servers after the built-in vendors, numbered by a hash of the name (the same on every server, in any order)', async () => {
    const hosted = (order: string[]) =>
      startTestApp({
        voice: {
          openai: null,
          pipelineEngineUrl: null,
          pipeline: {
            ...NO_VENDORS,
            openai: { apiKey: KEY, url: 'http://127.0.0.1:9/v1' },
            ttsProviders: Object.fromEntries(order.map((name) => [name, { apiKey: 'none', url: 'http://127.0.0.1:9/v1', model: 'm', sampleRate: 24000 as const }])),
            sttProviders: { whisper: { apiKey: 'none', url: 'http://127.0.0.1:9/v1', model: 'w' } },
          },
        },
      });
    const [one, other] = await Promise.all([hosted(['kokoro', 'piper']), hosted(['piper', 'kokoro'])]);
    try {
      const lists = await Promise.all(
        [one, other].map(async (server) => {
          const account = await server.account();
          return (await server.graphql(`{ synthesizerProviders { id name code } transcriberProviders { id name code } }`, {}, account.token)).body.data;
        }),
      );
      const [first, second] = lists;
      expect(first.synthesizerProviders.map((p: any) => p.code)).toEqual(['openai', 'kokoro', 'piper']);
      expect(first.transcriberProviders).toEqual([{ id: 2, name: 'OpenAI', code: 'openai' }, { id: expect.any(Number), name: 'whisper', code: 'whisper' }]);
      const id = (list: any[], code: string) => list.find((p) => p.code === code).id;
      for (const code of ['kokoro', 'piper']) {
        expect(id(first.synthesizerProviders, code)).toBe(id(second.synthesizerProviders, code));
        expect(id(first.synthesizerProviders, code)).toBeGreaterThanOrEqual(1000);
      }
      expect(id(first.synthesizerProviders, 'kokoro')).not.toBe(id(first.synthesizerProviders, 'piper'));
    } finally {
      await Promise.all([one.close(), other.close()]);
    }
  });

  it('need a token, as the other assistant lookups', async () => {
    for (const url of paths) {
      const res = await withVendors.request('GET', url);
      expect([url, res.status, res.headers.get('www-authenticate'), res.body]).toEqual([url, 401, 'Bearer', { message: 'Não autenticado.', code: 'UNAUTHENTICATED' }]);
    }
    const res = await withVendors.graphql(`{ synthesizerProviders { code } }`);
    expect(res.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });
});
