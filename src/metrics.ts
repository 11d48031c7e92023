import type { MikroORM } from '@mikro-orm/postgresql';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Prometheus metrics (prom-client), one registry per process. Counters count what this
 * process did; the gauges of shared state (calls in flight, the job queue) are read from the
 * database when scraped, so any API process tells the truth about all of them.
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'vozgate_' });

export const httpRequests = new Counter({
  name: 'vozgate_http_requests_total',
  help: 'HTTP requests answered, by method, route and status.',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [registry],
});

export const httpDuration = new Histogram({
  name: 'vozgate_http_request_duration_seconds',
  help: 'Time to answer an HTTP request, by method, route and status.',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

/** The pipeline engine's answers (design.md, "The pipeline engine"): each step's time after the caller's end of speech. */
export const voiceTurnLatency = new Histogram({
  name: 'vozgate_voice_turn_latency_seconds',
  help: "Seconds from the caller's end of speech to each step of the pipeline engine's answer: stt_final, llm_first_token, tts_first_byte, first_audio (voice to voice).",
  labelNames: ['stage'] as const,
  buckets: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 5],
  registers: [registry],
});

export const graphqlOperations = new Counter({
  name: 'vozgate_graphql_operations_total',
  help: 'GraphQL operations run on /graphql, by type (query, mutation) and outcome (ok, error).',
  labelNames: ['type', 'outcome'] as const,
  registers: [registry],
});

export const jobOutcomes = new Counter({
  name: 'vozgate_jobs_total',
  help: 'Jobs run by this process, by task and outcome (success, error, failed: out of attempts).',
  labelNames: ['task', 'outcome'] as const,
  registers: [registry],
});

export const webhookDeliveries = new Counter({
  name: 'vozgate_webhook_attempts_total',
  help: 'Webhook delivery attempts made by this process, by outcome (delivered, retry, failed, cancelled).',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const smsOutcomes = new Counter({
  name: 'vozgate_sms_total',
  help: 'SMS settled by this process, by outcome (sent, failed), and those left pending (unknown outcome).',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

/** Voice vendors retried or replaced during calls (design.md, "Vendors that never end a call by themselves"). */
export const voiceVendorEvents = new Counter({
  name: 'vozgate_voice_vendor_events_total',
  help: 'Voice vendors retried or replaced during calls by this process, by part (stt, llm, tts), vendor (the one that failed) and kind (retried, switched).',
  labelNames: ['part', 'vendor', 'kind'] as const,
  registers: [registry],
});

/** The database the gauges below read when scraped (the process's; the last one given). */
let watched: MikroORM | null = null;

export function watchDatabase(orm: MikroORM): void {
  watched = orm;
}

async function count(sql: string): Promise<number> {
  if (!watched) return 0;
  const [row] = await watched.em.fork().execute(sql);
  return row.n;
}

new Gauge({
  name: 'vozgate_calls_in_progress',
  help: 'Calls initiated, ringing or in progress, across every process.',
  registers: [registry],
  async collect() {
    this.set(await count('select count(*)::int as n from calls where finished_at is null'));
  },
});

new Gauge({
  name: 'vozgate_job_queue_depth',
  help: 'Jobs due and not yet taken by a worker, across every process.',
  registers: [registry],
  async collect() {
    this.set(await count('select count(*)::int as n from graphile_worker.jobs where locked_at is null and run_at <= now()'));
  },
});

interface KnexPool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}

new Gauge({
  name: 'vozgate_db_pool_connections',
  help: 'This process’s database pool: connections in use, free, and requests waiting for one.',
  labelNames: ['state'] as const,
  registers: [registry],
  collect() {
    const pool = watched ? (watched.em.getConnection().getKnex().client as { pool?: KnexPool }).pool : undefined;
    this.set({ state: 'used' }, pool?.numUsed() ?? 0);
    this.set({ state: 'free' }, pool?.numFree() ?? 0);
    this.set({ state: 'waiting' }, pool?.numPendingAcquires() ?? 0);
  },
});

/** Audio a call's socket sent faster than real time, dropped before the engine heard it (src/voice/pacing.ts). */
export const voiceAudioDropped = new Counter({
  name: 'vozgate_voice_audio_dropped_seconds_total',
  help: 'Seconds of callers’ audio dropped because their socket sent it faster than real time, by transport (browser, twilio).',
  labelNames: ['transport'] as const,
  registers: [registry],
});

export const voiceSocketsClosedForPacing = new Counter({
  name: 'vozgate_voice_sockets_closed_for_pace_total',
  help: 'Call sockets closed (1008) because they kept sending audio faster than real time, by transport (browser, twilio).',
  labelNames: ['transport'] as const,
  registers: [registry],
});

/** Frames the VAD never judged (src/voice/vad/silero.ts): late, beyond a call's queue, or in a batch the worker did not answer. */
export const vadFramesDropped = new Counter({
  name: 'vozgate_voice_vad_frames_dropped_total',
  help: 'Frames of callers’ audio the VAD skipped, by reason: late (waited over 200 ms), queue_full (a call ahead of real time), timeout (the worker did not answer its batch).',
  labelNames: ['reason'] as const,
  registers: [registry],
});

/** Callers' audio that went on undenoised (src/voice/vad/denoiser.ts): the worker failed, or did not answer in time. */
export const denoiseChunksFailed = new Counter({
  name: 'vozgate_voice_denoise_failed_chunks_total',
  help: 'Chunks of callers’ audio sent on to the STT and VAD without noise cancellation, because the voice worker failed or did not answer within 1 s.',
  registers: [registry],
});

/** Calls whose RNNoise state the voice worker holds, as its last answer said. */
export const denoiseCalls = new Gauge({
  name: 'vozgate_voice_denoise_calls',
  help: 'Calls whose noise-cancellation state the voice worker holds (made on a call’s first audio, freed at its end).',
  registers: [registry],
});

/** How long the VAD's oldest frame under way has waited, read when scraped (src/voice/vad/silero.ts tells it). */
let vadLagSeconds: () => number = () => 0;

export function watchVadLag(read: () => number): void {
  vadLagSeconds = read;
}

/** The VAD's lag now, in seconds (admission control reads it: src/voice/admission.ts). */
export function readVadLagSeconds(): number {
  return vadLagSeconds();
}

/** Calls a process turned away because its measured load was past VOICE_MAX_LOAD_DELAY_MS (src/voice/admission.ts). */
export const voiceCallsRefused = new Counter({
  name: 'vozgate_voice_calls_refused_total',
  help: 'New calls this process refused because its event-loop delay or VAD lag over the last seconds passed VOICE_MAX_LOAD_DELAY_MS, by kind (web: 503; inbound: Twilio <Reject reason="busy"/>).',
  labelNames: ['kind'] as const,
  registers: [registry],
});

/** This process's load as admission control measures it (the mean of the last seconds). */
let measuredLoad: () => { loop_delay_ms: number; vad_lag_ms: number } | null = () => null;

export function watchLoad(read: () => { loop_delay_ms: number; vad_lag_ms: number } | null): void {
  measuredLoad = read;
}

new Gauge({
  name: 'vozgate_voice_load_delay_seconds',
  help: 'The load admission control decides on, averaged over the last seconds: the event loop’s delay (p99 of each quarter second) and the VAD’s lag, by measure (loop, vad).',
  labelNames: ['measure'] as const,
  registers: [registry],
  collect() {
    const load = measuredLoad();
    this.set({ measure: 'loop' }, (load?.loop_delay_ms ?? 0) / 1000);
    this.set({ measure: 'vad' }, (load?.vad_lag_ms ?? 0) / 1000);
  },
});

new Gauge({
  name: 'vozgate_voice_vad_lag_seconds',
  help: 'Seconds the oldest frame of callers’ audio waiting for the VAD (or in the batch it judges) has waited; frames past 0.2 s are dropped.',
  registers: [registry],
  collect() {
    this.set(vadLagSeconds());
  },
});
