import { execFile } from 'node:child_process';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../src/config';
import type { TurnSpan } from '../../src/telemetry';
import { json, startReceiver, type Receiver } from '../helpers/receiver';

/**
 * The OpenTelemetry export (src/telemetry.ts) against a real HTTP server on 127.0.0.1 standing
 * in for an OTLP/HTTP collector, which answers as the OTLP spec says (200 and an
 * ExportTraceServiceResponse, `{}`, in JSON).
 *
 * The module runs in a plain Node child: the official exporter loads `http` with a dynamic
 * import(), which Jest's sandbox refuses without --experimental-vm-modules
 * (open-telemetry/opentelemetry-js#6035). The child compiles src/telemetry.ts with TypeScript as
 * the build does (module node16, so its own import() stays one) and prints what it saw.
 */

const CHILD = `
const fs = require('node:fs');
const ts = require('typescript');
require.extensions['.ts'] = (module, filename) => {
  const compilerOptions = { module: ts.ModuleKind.Node16, target: ts.ScriptTarget.ES2022, esModuleInterop: true };
  module._compile(ts.transpileModule(fs.readFileSync(filename, 'utf8'), { fileName: filename, compilerOptions }).outputText, filename);
};
const { startTelemetry } = require(process.env.TELEMETRY_MODULE);
const loaded = () => Object.keys(require.cache).filter((file) => file.includes('@opentelemetry')).length;
(async () => {
  const { endpoint, turns } = JSON.parse(process.env.TELEMETRY_INPUT);
  const warnings = [];
  const logger = { warn: (message, fields) => warnings.push({ message, fields }) };
  const off = await startTelemetry(null, logger);
  const loadedWhenOff = loaded();
  const telemetry = await startTelemetry(endpoint, logger);
  for (const turn of turns) telemetry.turn(turn);
  await telemetry.shutdown();
  process.stdout.write(JSON.stringify({ off, loadedWhenOff, loadedWhenOn: loaded(), warnings }));
})();
`;

interface ChildReport {
  off: unknown;
  loadedWhenOff: number;
  loadedWhenOn: number;
  warnings: { message: string; fields: Record<string, unknown> }[];
}

function runTelemetry(endpoint: string, turns: TurnSpan[], env: Record<string, string> = {}): Promise<ChildReport> {
  const childEnv = {
    PATH: process.env.PATH ?? '',
    TELEMETRY_MODULE: path.resolve(__dirname, '../../src/telemetry.ts'),
    TELEMETRY_INPUT: JSON.stringify({ endpoint, turns }),
    ...env,
  };
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['-e', CHILD], { env: childEnv, cwd: path.resolve(__dirname, '../..'), timeout: 20_000 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`${error.message}\n${stderr}`));
      resolve(JSON.parse(stdout) as ChildReport);
    });
  });
}

/** OTLP/JSON's AnyValue, as much of it as these spans use. */
type AnyValue = { stringValue?: string; intValue?: number | string };
type KeyValue = { key: string; value: AnyValue };
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes: KeyValue[];
}
interface ExportTraceServiceRequest {
  resourceSpans: { resource: { attributes: KeyValue[] }; scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[] }[];
}

const valueOf = (value: AnyValue) => value.stringValue ?? Number(value.intValue);
const attributes = (list: KeyValue[]) => Object.fromEntries(list.map(({ key, value }) => [key, valueOf(value)]));
const nanos = (ms: number) => BigInt(ms) * 1_000_000n;

const at = Date.UTC(2025, 5, 2, 14, 30, 0, 125);
/** An answer heard in full, and one cut before any of it was heard. */
const TURNS: TurnSpan[] = [
  { callId: 41, startedAt: at, endedAt: at + 1010, latency: { stt_final_ms: 310, llm_first_token_ms: 720, tts_first_byte_ms: 940, first_audio_ms: 1010 } },
  { callId: 42, startedAt: at + 20_000, endedAt: at + 21_500, latency: { stt_final_ms: 280, llm_first_token_ms: 650, tts_first_byte_ms: null, first_audio_ms: null } },
];

let collector: Receiver;

beforeAll(async () => {
  collector = await startReceiver();
});
afterAll(async () => {
  await collector?.close();
});
beforeEach(() => {
  collector.requests.length = 0;
  collector.respond = (_request, res) => json(res, 200, {});
});

describe('OpenTelemetry export', () => {
  it('reads OTEL_EXPORTER_OTLP_ENDPOINT as an http(s) base URL, and is off without it', () => {
    expect(loadConfig({}).otlpEndpoint).toBeNull();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.example:4318/' }).otlpEndpoint).toBe('https://collector.example:4318');
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(ConfigError);
  });

  it('sends the turns, batched, to {endpoint}/v1/traces as OTLP/JSON spans with their times and steps; unset, it loads nothing', async () => {
    const report = await runTelemetry(collector.url, TURNS, { OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=k-123' });

    // Unset: no export, and not one OpenTelemetry module loaded; set, they are.
    expect(report.off).toBeNull();
    expect(report.loadedWhenOff).toBe(0);
    expect(report.loadedWhenOn).toBeGreaterThan(0);
    expect(report.warnings).toEqual([]);

    // One batch, on shutdown: both turns in one request.
    expect(collector.requests).toHaveLength(1);
    const [request] = collector.requests;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/v1/traces');
    expect(request.headers['content-type']).toBe('application/json');
    // The exporter's standard variables still apply (a collector's key).
    expect(request.headers['x-collector-key']).toBe('k-123');

    const body = JSON.parse(request.body) as ExportTraceServiceRequest;
    expect(body.resourceSpans).toHaveLength(1);
    const [{ resource, scopeSpans }] = body.resourceSpans;
    expect(attributes(resource.attributes)).toMatchObject({ 'service.name': 'vozgate' });
    const spans = scopeSpans.flatMap((scope) => scope.spans);
    expect(spans.map((span) => span.name)).toEqual(['voice.turn', 'voice.turn']);

    const [heard, cut] = spans;
    expect(BigInt(heard.startTimeUnixNano)).toBe(nanos(TURNS[0].startedAt));
    expect(BigInt(heard.endTimeUnixNano)).toBe(nanos(TURNS[0].endedAt));
    expect(attributes(heard.attributes)).toEqual({
      'voice.call.id': 41,
      'voice.turn.stt_final_ms': 310,
      'voice.turn.llm_first_token_ms': 720,
      'voice.turn.tts_first_byte_ms': 940,
      'voice.turn.first_audio_ms': 1010,
    });
    // Steps that did not happen are left out, not sent as zero.
    expect(BigInt(cut.startTimeUnixNano)).toBe(nanos(TURNS[1].startedAt));
    expect(BigInt(cut.endTimeUnixNano)).toBe(nanos(TURNS[1].endedAt));
    expect(attributes(cut.attributes)).toEqual({ 'voice.call.id': 42, 'voice.turn.stt_final_ms': 280, 'voice.turn.llm_first_token_ms': 650 });

    // Each turn is a root span of its own trace (nothing else is traced), SPAN_KIND_INTERNAL.
    for (const span of spans) {
      expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(span.spanId).toMatch(/^[0-9a-f]{16}$/);
      expect(span.parentSpanId ?? '').toBe('');
      expect(span.kind).toBe(1);
    }
    expect(heard.traceId).not.toBe(cut.traceId);
  });

  it('logs a collector that refuses the spans, and still shuts down', async () => {
    collector.respond = (_request, res) => json(res, 400, { code: 3, message: 'bad request' });
    const report = await runTelemetry(collector.url, TURNS.slice(0, 1));
    expect(collector.requests.map((request) => `${request.method} ${request.url}`)).toEqual(['POST /v1/traces']);
    expect(report.warnings).toEqual([{ message: 'telemetry: spans were not exported', fields: { spans: 1, error: expect.any(String) } }]);
  });
});
