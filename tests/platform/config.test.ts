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
