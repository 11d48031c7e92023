import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ENV, loadConfig } from '../../src/config';

/** Configuration: one definition (envalid), every bad variable reported at once, the README in step. */
describe('configuration', () => {
  it('reports every bad variable at once, with its name and what it allows, and never a secret', () => {
    let message = '';
    try {
      loadConfig({ PORT: 'x', LOG_LEVEL: 'loud', CALL_RATES: '{}', SECRETS_KEY: 'not-a-key', SEED_DEMO: 'maybe', CORS_ORIGINS: 'https://a.example/x' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message.split('\n').slice(1).map((line) => line.trim().split(' ')[0]).sort()).toEqual(
      ['CALL_RATES', 'CORS_ORIGINS', 'LOG_LEVEL', 'PORT', 'SECRETS_KEY', 'SEED_DEMO'],
    );
    expect(message).toContain('PORT must be an integer from 0 to 65535, got "x"');
    expect(message).toContain('SECRETS_KEY must be 32 bytes, as base64 or 64 hex digits');
    expect(message).not.toContain('not-a-key');
  });

  it('treats empty variables as unset, and keeps the defaults', () => {
    const config = loadConfig({ PORT: '', LOG_LEVEL: ' ' });
    expect(config).toMatchObject({ port: 4000, logLevel: 'info', maxParallelCalls: 10, sms: { timeoutMs: 10_000 } });
  });

  it('takes CURRENCY as an ISO 4217 code (default EUR) and refuses anything else', () => {
    expect(loadConfig({}).currency).toBe('EUR');
    expect(loadConfig({ CURRENCY: 'BRL' }).currency).toBe('BRL');
    for (const bad of ['eur', 'EURO', 'R$']) expect(() => loadConfig({ CURRENCY: bad })).toThrow(/CURRENCY must be an ISO 4217 code/);
  });

  it('reads TTS_PROVIDERS and STT_PROVIDERS (key_env optional, sample_rate 24000 by default) and refuses bad ones at boot, naming the variable', () => {
    const config = loadConfig({
      TTS_PROVIDERS: '{"kokoro":{"base_url":"http://kokoro:8880/v1/","model":"kokoro"},"piper":{"base_url":"https://tts.example","key_env":"PIPER_KEY","model":"p","sample_rate":16000}}',
      STT_PROVIDERS: '{"whisper":{"base_url":"http://whisper:8000/v1","model":"Systran/faster-whisper-small"}}',
      PIPER_KEY: 'secret-piper',
    });
    expect(config.voice.pipeline.ttsProviders).toEqual({
      kokoro: { apiKey: 'none', url: 'http://kokoro:8880/v1', model: 'kokoro', sampleRate: 24000 },
      piper: { apiKey: 'secret-piper', url: 'https://tts.example', model: 'p', sampleRate: 16000 },
    });
    expect(config.voice.pipeline.sttProviders).toEqual({ whisper: { apiKey: 'none', url: 'http://whisper:8000/v1', model: 'Systran/faster-whisper-small' } });
    expect(loadConfig({}).voice.pipeline).toMatchObject({ ttsProviders: {}, sttProviders: {} });
    const refusal = (env: Record<string, string>) => {
      try {
        loadConfig(env);
      } catch (error) {
        return (error as Error).message;
      }
      return null;
    };
    const cases: [Record<string, string>, string][] = [
      [{ TTS_PROVIDERS: '{"kokoro":' }, 'TTS_PROVIDERS must be a JSON object such as'],
      [{ TTS_PROVIDERS: '[]' }, 'TTS_PROVIDERS must be a JSON object'],
      [{ TTS_PROVIDERS: '{"kokoro":{"model":"k"}}' }, 'TTS_PROVIDERS "kokoro": base_url must be an http(s) URL'],
      [{ TTS_PROVIDERS: '{"kokoro":{"base_url":"http://k"}}' }, 'TTS_PROVIDERS "kokoro": model must be'],
      [{ TTS_PROVIDERS: '{"kokoro":{"base_url":"http://k","model":"k","sample_rate":22050}}' }, 'TTS_PROVIDERS "kokoro": sample_rate must be one of 8000, 16000, 24000, 48000'],
      [{ TTS_PROVIDERS: '{"openai":{"base_url":"http://k","model":"k"}}' }, `TTS_PROVIDERS "openai" is a built-in vendor's name`],
      [{ TTS_PROVIDERS: '{"My Kokoro":{"base_url":"http://k","model":"k"}}' }, 'TTS_PROVIDERS "My Kokoro": a name is'],
      [{ STT_PROVIDERS: '{"deepgram":{"base_url":"http://w","model":"w"}}' }, `STT_PROVIDERS "deepgram" is a built-in vendor's name`],
      [{ STT_PROVIDERS: '{"whisper":{"base_url":"http://w","model":"w","key_env":"lower"}}' }, 'STT_PROVIDERS "whisper": key_env must name an environment variable'],
      [{ STT_PROVIDERS: '{"whisper":{"base_url":"http://w","model":"w","key_env":"WHISPER_KEY"}}' }, 'STT_PROVIDERS names WHISPER_KEY for "whisper", and it is not set'],
    ];
    for (const [env, expected] of cases) expect([env, refusal(env)]).toEqual([env, expect.stringContaining(expected)]);
    // The value may hold a URL with credentials: never echoed.
    expect(refusal({ STT_PROVIDERS: '{"w":{"base_url":"http://user:pw@w"}}' })).not.toContain('pw@');
  });

  it('the README documents exactly the variables the service reads', () => {
    const readme = readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Running it'), readme.indexOf('- **URLs**'));
    const documented = new Set(
      section
        .split('\n')
        .filter((line) => line.startsWith('| `'))
        .flatMap((line) => [...line.split('|')[1].matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1])),
    );
    expect([...documented].sort()).toEqual(Object.keys(ENV).sort());
  });
});
