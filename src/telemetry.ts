import type { SpanExporter } from '@opentelemetry/sdk-trace';
import type { Logger } from './log';
import type { TurnLatency } from './modules/calls/call.conversation';

/**
 * The optional OpenTelemetry export (design.md, "The pipeline engine"): one span per answer of
 * the pipeline engine, from the caller's end of speech to the first audio sent, with the time
 * of each step. With OTEL_EXPORTER_OTLP_ENDPOINT, an OTLP/HTTP collector's base URL, spans go
 * to `{endpoint}/v1/traces`, the per-signal URL the spec builds from that variable
 * (opentelemetry.io/docs/specs/otel/protocol/exporter, "Endpoint URLs for OTLP/HTTP"), as
 * OTLP/JSON through the official exporter (@opentelemetry/exporter-trace-otlp-http), in batches.
 *
 * Only these spans are traced: no global tracer provider is registered, so nothing else in the
 * process is instrumented. Unset, none of the OpenTelemetry packages is even loaded.
 */

/** One answer, as its span tells it: times and an id, never a word of the conversation. */
export interface TurnSpan {
  callId: number;
  /** The caller's end of speech, in ms since the epoch. */
  startedAt: number;
  /** The first audio sent or, when none was, the moment the answer ended; ms since the epoch. */
  endedAt: number;
  latency: TurnLatency;
}

export interface Telemetry {
  /** Records an answer's span; it leaves with the next batch. */
  turn(span: TurnSpan): void;
  /** Sends the spans not sent yet, then stops (the process is stopping). */
  shutdown(): Promise<void>;
}

const TURN_SPAN = 'voice.turn';

/** The export of spans, or null (nothing loaded, nothing to do) without an endpoint. */
export async function startTelemetry(endpoint: string | null, logger: Pick<Logger, 'warn'>): Promise<Telemetry | null> {
  if (!endpoint) return null;
  const [{ BatchSpanProcessor, TracerProvider }, { OTLPTraceExporter }, { defaultResource, resourceFromAttributes }, { ATTR_SERVICE_NAME }] =
    await Promise.all([
      import('@opentelemetry/sdk-trace'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/semantic-conventions'),
    ]);
  const otlp = new OTLPTraceExporter({ url: `${endpoint}/v1/traces` });
  // The SDK reports a failed export to nobody by default; an operator should see it.
  const exporter: SpanExporter = {
    export: (spans, done) =>
      otlp.export(spans, (result) => {
        if (result.error) logger.warn('telemetry: spans were not exported', { spans: spans.length, error: result.error.message });
        done(result);
      }),
    shutdown: () => otlp.shutdown(),
  };
  const provider = new TracerProvider({
    resource: defaultResource().merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: 'vozgate' })),
    spanProcessors: [new BatchSpanProcessor({ exporter })],
  });
  const tracer = provider.getTracer('vozgate');
  return {
    turn({ callId, startedAt, endedAt, latency }) {
      const span = tracer.startSpan(TURN_SPAN, { startTime: startedAt, attributes: { 'voice.call.id': callId } });
      for (const [step, ms] of Object.entries(latency)) if (ms !== null) span.setAttribute(`voice.turn.${step}`, ms);
      span.end(endedAt);
    },
    // A last export that failed was logged above; the process stops all the same.
    shutdown: () => provider.shutdown().catch(() => {}),
  };
}
