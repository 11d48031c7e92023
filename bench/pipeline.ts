import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Client } from 'pg';
import WebSocket from 'ws';
import { initOrm } from '../src/db/orm';
import { addPhoneNumber, createAccount } from '../src/modules/accounts/account.service';
import { decode, encode } from '../src/voice/codecs/mulaw';
import { Resampler } from '../src/voice/codecs/resample';
import { endpointSilenceMs } from '../src/voice/engines/pipeline/endpointing';
import { startFakeDeepgram, type DeepgramSession, type FakeDeepgram } from '../tests/helpers/fakes/deepgram';
import { MS_PER_CHARACTER, startFakeOpenAi } from '../tests/helpers/fakes/openai';
import { collectGarbage, cpuMs, dropDatabase, freshDatabase, percentile, rssKb, start, startVozgate } from './process';
import { incomingCall } from './twilio-call';
import { profileMarkdown, summariseProfile, type CpuProfile } from './profile';

/**
 * `npm run bench -- --only pipeline [--quick]`: the built-in pipeline engine (issue 42) with N
 * calls at once (10, 50, 100) on one API process: the compiled server in a child process,
 * started afresh for each N. This process plays the phone callers (Twilio Media Streams) and the
 * engine's vendors, with fixed latencies: Deepgram live STT sends a final result STT_FINAL_MS
 * after the end of speech (after it sees the Finalize, or after its own endpointing), OpenAI's
 * chat completion its first token LLM_FIRST_TOKEN_MS after the request, OpenAI's speech its
 * first audio bytes TTS_FIRST_BYTE_MS after the request. The fakes are the tests' own
 * (tests/helpers/fakes/deepgram.ts, openai.ts), compiled with the bench because it imports them:
 * the wire formats are exactly those the tests check, with no second copy to drift. (The build's
 * fingerprint, scripts/build.mjs, does not look at tests/: after a change to a fake alone, build
 * with `node scripts/build.mjs --force`.)
 *
 * A call: the caller sends a 20 ms mu-law frame every 20 ms for the whole call (the line's
 * silence between utterances), says a phrase of real speech (`utterance`: 2.86 s), waits for the
 * answer (one sentence, 1.26 s of audio), and speaks again 0.3 to 0.8 s after the answer's audio
 * stopped. The assistant: engine_type pipeline, endpoint_type vad at endpoint_sensitivity 5
 * (200 ms of silence), no noise cancellation (a second run at 10 calls has it, for its CPU), no
 * ambience, the customer speaks first, no fillers; its other settings are the defaults.
 *
 * The engine's added latency, per turn:
 *   voice-to-voice = the answer's first frame received - the utterance's last speech frame sent,
 *                    both stamped by the caller on this process's one clock (a speech frame is
 *                    one the fake STT hears as speech: RMS >= SPEECH_RMS);
 *   added          = voice-to-voice - 200 (endpointing) - 150 (STT) - 250 (LLM) - 120 (TTS).
 * Why this is the engine's own cost: the engine asks Deepgram for 200 ms endpointing, and the
 * fake ends the utterance on it, by energy on the 20 ms frames it receives: on the 10th silent
 * frame after the last speech frame, which the caller sends 200 ms after that one; the fake sends
 * its final 150 ms later. The model's first token comes 250 ms after its request arrives, the
 * speech's first bytes 120 ms after theirs. Everything else between the two stamps is vozgate:
 * forwarding the caller's audio to the STT, its VAD, taking the final and ending the turn, the
 * request to the model, the sentence to TTS, resampling, framing and sending the first frame
 * (and the loopback sockets, and this process's own delay, reported as "bench loop delay").
 * The VAD's 32 ms frames: the engine ends the turn on Silero's silence, whole 32 ms frames of it
 * (7 frames, 224 ms, for 200 ms), counted from the first frame Silero judges silent, which is up
 * to a frame after the speech ends plus Silero's own tail; run offline on this utterance at the 8
 * alignments of the 20 ms and 32 ms grids, that decision comes 220 to 320 ms after the last
 * speech frame. The engine then takes the first final after its decision: Deepgram's
 * speech_final, at 350 ms, or else the answer to the Finalize it sends. So while the VAD decides
 * within 350 ms, its frame granularity is hidden behind the STT's endpointing and latency, and
 * subtracted with them: it costs nothing. When it decides later (its frames wait behind other
 * calls' work), the turn waits for the Finalize's answer, 150 ms more, and that counts as the
 * engine's. Each row gives the VAD's decision (the Finalize as the fake receives it) after the
 * last speech frame, and the share of turns in which it came after the STT's own final.
 *
 * Also per N: the server's CPU (user + system, all its threads) over the measured window, per
 * call, in % of one core, and its main thread's alone (Silero's inference runs there too:
 * onnxruntime-node runs a session synchronously, in a setImmediate); its RSS growth per call, once
 * V8's garbage is collected, with the calls up over the server after a warm-up call that loaded
 * the model and the clients; and whether the answers' audio kept real time: frame k of an answer
 * is due 20 ms x k after its first frame arrived, and one that arrives more than LATE_MS after
 * that is late (a phone's jitter buffer would have run dry).
 *
 * `--hosted-stt` (issue 53, item 6): the same calls on an assistant whose `transcriber` is a
 * hosted OpenAI-compatible transcription server (STT_PROVIDERS; the fake OpenAI's
 * `/audio/transcriptions`, answering HOSTED_STT_MS after each request), beside the same calls on
 * Deepgram and on the floor. Such a server gets each turn whole once the VAD has ended it, so its
 * fixed latency counts from the VAD's decision, not from the end of speech: the VAD's decision
 * after the configured silence (its 32 ms frames and Silero's tail, 20 to 120 ms here) and the
 * turn's WAV on its way are vozgate's own cost in that row, and so in its added latency. Its
 * turns are not traced part by part (the fake server cannot tell the calls' turns apart).
 */

/** How the callers reach the engine: Twilio Media Streams (a phone call), or a web call's socket (a browser). */
export type Transport = 'twilio' | 'web';

export interface PipelineLevel {
  calls: number;
  /** Admission rows (`--admission`): the calls offered, one every ADMISSION_OFFER_MS, and those the process refused (`calls` are the ones it took). */
  offered?: number;
  refused?: number;
  /** The machine's other core was kept busy (a spinning process) for the row. */
  busy_core?: boolean;
  /** vozgate, or the floor (bench/pipeline-floor.ts: the same calls and vendors, no engine). */
  target: 'vozgate' | 'floor';
  /** The assistant's transcriber is a hosted server given each turn whole (`--hosted-stt`); Deepgram otherwise. */
  hosted_stt?: boolean;
  transport: Transport;
  noise_cancellation: boolean;
  seconds: number;
  /** Turns whose last speech frame was sent in the measured window, and those of them never answered. */
  turns: number;
  unanswered: number;
  v2v_p50_ms: number;
  v2v_p99_ms: number;
  added_p50_ms: number;
  added_p99_ms: number;
  /** Where the added time goes, p50 and p99 of each part (ms over the fakes' latency in it). */
  parts: Record<'to_stt_final' | 'final_to_model' | 'model_to_tts' | 'tts_to_first_frame', { p50_ms: number; p99_ms: number }>;
  /** The VAD's end of turn (the Finalize as the fake STT receives it) after the last speech frame. */
  vad_end_p50_ms: number;
  vad_end_p99_ms: number;
  /** Turns whose VAD decided after the STT's own final was sent (the turn then waits for the Finalize's answer). */
  vad_after_stt_share: number;
  cpu_core_pct_per_call: number;
  /**
   * How busy the server's main thread was (its event loop: the calls' JavaScript, Silero's
   * inference and RNNoise run there), this process (the callers and the fakes) and the whole
   * machine (of `cores`), in % over the window.
   */
  server_main_thread_pct: number;
  bench_cpu_pct: number;
  machine_busy_pct: number;
  cores: number;
  /**
   * RSS growth per call: once V8's garbage is collected, with the calls up (idle, between turns)
   * over the server after its warm-up call; and the highest RSS sampled in the window over the
   * same baseline (with the garbage V8 lets pile up between collections).
   */
  rss_mb_per_call: number;
  peak_rss_mb_per_call: number;
  /** V8's live heap per call (read to the MB from the inspector: coarse at 10 calls). */
  live_heap_kb_per_call: number;
  frames: number;
  late_frames: number;
  late_share: number;
  /** The latest frame past its due time (negative: every frame came that much ahead; the engine sends 60 ms ahead). */
  worst_late_ms: number;
  /**
   * `clear` messages (an answer cut by barge-in), and answer frames that came while the caller
   * was still speaking (a turn ended early): none expected, the caller waits for the answer.
   */
  clears: number;
  frames_while_speaking: number;
  /** The server's event-loop delay over the window (prom-client's, from /metrics), and this process's. */
  server_loop_p99_ms: number | null;
  server_loop_max_ms: number | null;
  bench_loop_p99_ms: number;
  /**
   * PostgreSQL's write-ahead log over the window (`pg_current_wal_lsn()` before and after), per
   * call and per turn: what recording the calls' turns costs the database (and its replicas).
   */
  wal_bytes_per_call?: number;
  wal_bytes_per_turn?: number;
  /** Of it, what the server's statements wrote (pg_stat_statements' `wal_bytes`; without commit records), per call, where the extension is loaded. */
  wal_statement_bytes_per_call?: number;
}

export interface PipelineResult {
  node: string;
  endpoint_silence_ms: number;
  stt_final_ms: number;
  llm_first_token_ms: number;
  tts_first_byte_ms: number;
  utterance_ms: number;
  answer_ms: number;
  levels: PipelineLevel[];
}

const LEVELS = [10, 50, 100];
const FLOOR_LEVELS = [10, 50];
/** `--only webcall`: this many calls on each transport. */
const WEBCALL_CALLS = 50;
const WEBCALL_ROUNDS = 3;
/** The calls of the run with noise cancellation, for its CPU. */
const NOISE_CANCELLED_CALLS = 10;
/** `--admission`: the reference row's calls, the calls offered to one process, and the pace they are offered at (a campaign's ramp). */
const ADMISSION_REFERENCE_CALLS = 50;
const ADMISSION_OFFERED_CALLS = 100;
const ADMISSION_OFFER_MS = 200;
/** Measured seconds per N. */
const SECONDS = { quick: 12, full: 30 };
const ENDPOINT_SENSITIVITY = 5;
const STT_FINAL_MS = 150;
/** The hosted transcription server's time per turn (`--hosted-stt`): Deepgram's, so the rows' fixed latencies are alike. */
const HOSTED_STT_MS = STT_FINAL_MS;
const LLM_FIRST_TOKEN_MS = 250;
const TTS_FIRST_BYTE_MS = 120;
const FRAME_MS = 20;
const FRAME_BYTES = 160;
/** A frame of an answer this late past its due time is late. */
const LATE_MS = 40;
/** The fake STT's speech threshold (tests/helpers/fakes/deepgram.ts, SPEECH_RMS). */
const SPEECH_RMS = 400;
/**
 * The utterance ends before the sentence's first pause this long. At 200 ms endpointing the VAD
 * ends the turn in that pause (180 ms of silence, plus Silero's tail and its 32 ms frames) at some
 * alignments of the frames: one utterance would be two turns.
 */
const PAUSE_FRAMES = 8;
/** No answer frame for this long: the answer is over. */
const QUIET_MS = 400;
const REPLY_TIMEOUT_MS = 6000;
/** Each call's first turn starts within this after its stream opened, to spread the calls. */
const FIRST_TURN_SPREAD_MS = 3000;
/** After the last call is up, before the window: every call has begun talking. */
const SETTLE_MS = 4000;
const PUBLIC_URL = 'http://vozgate.bench';
const ACCOUNT_SID = `AC${randomBytes(16).toString('hex')}`;
const AUTH_TOKEN = randomBytes(16).toString('hex');
const TWILIO = { accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN, publicUrl: PUBLIC_URL };
const METRICS_TOKEN = randomBytes(16).toString('hex');
const SILENCE = Buffer.alloc(FRAME_BYTES, 0xff).toString('base64');
/** A browser's 20 ms frame of silence: 16 kHz PCM16. */
const SILENCE_PCM16 = Buffer.alloc(640);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The kernel's clock ticks a second, the unit of /proc's CPU times. */
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
const round = (value: number) => Math.round(value * 10) / 10;
/** Now on the monotonic clock, in microseconds: the clock of a CPU profile's timestamps. */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

interface Utterance {
  /** Base64 mu-law, 20 ms each. */
  frames: string[];
  /** The same, as a browser sends them: 16 kHz PCM16, 20 ms each. */
  pcm16: Buffer[];
  /** The index of the last frame with speech in it. */
  lastSpeech: number;
}

/**
 * The first phrase of tests/fixtures/speech-pt-br-16k.wav (a pt-BR sentence by espeak-ng), as
 * Twilio carries it: 8 kHz mu-law in 20 ms frames, as the tests' caller makes it.
 */
function utterance(root: string): Utterance {
  const wav = readFileSync(path.join(root, 'tests', 'fixtures', 'speech-pt-br-16k.wav'));
  const pcm = new Int16Array(wav.buffer.slice(wav.byteOffset + 44, wav.byteOffset + wav.length - ((wav.length - 44) % 2)));
  const mulaw = encode(new Resampler(16000, 8000).process(pcm));
  const frames: Buffer[] = [];
  for (let at = 0; at < mulaw.length; at += FRAME_BYTES) {
    const frame = Buffer.alloc(FRAME_BYTES, 0xff);
    frame.set(mulaw.subarray(at, at + FRAME_BYTES));
    frames.push(frame);
  }
  const loud = frames.map((frame) => {
    const samples = decode(frame);
    let energy = 0;
    for (const sample of samples) energy += sample * sample;
    return Math.sqrt(energy / samples.length) >= SPEECH_RMS;
  });
  let end = frames.length;
  for (let i = 0, quiet = 0; i < frames.length; i++) {
    quiet = loud[i] ? 0 : quiet + 1;
    if (quiet === PAUSE_FRAMES && loud.slice(0, i).includes(true)) {
      end = i + 1 - PAUSE_FRAMES;
      break;
    }
  }
  const wide = new Resampler(8000, 16000).process(decode(mulaw.subarray(0, end * FRAME_BYTES)));
  const pcm16 = Array.from({ length: end }, (_, i) => {
    const frame = Buffer.alloc(640);
    for (let j = 0; j < 320 && i * 320 + j < wide.length; j++) frame.writeInt16LE(wide[i * 320 + j], j * 2);
    return frame;
  });
  return { frames: frames.slice(0, end).map((frame) => frame.toString('base64')), pcm16, lastSpeech: loud.lastIndexOf(true, end - 1) };
}

/** One turn of a call, stamped on this process's clock (performance.now()). */
interface Turn {
  lastSpeechAt: number | null;
  /** The fake STT received the engine's Finalize. */
  finalizeAt: number | null;
  /** The fake STT sent the final with the words, and the first final after the Finalize (the one the turn ends on). */
  wordsFinalAt: number | null;
  finalAt: number | null;
  /** The fakes received the model's request, and the speech's. */
  modelAt: number | null;
  speechAt: number | null;
  firstAudioAt: number | null;
  frames: number;
  lateFrames: number;
  worstLateMs: number;
}

/**
 * A caller on one call: talks, waits for the answer, hears it, talks again. On a phone line
 * (Twilio Media Streams: `twilio` names its stream and call) or a web call's socket (a browser:
 * 16 kHz PCM16 binary frames, JSON marks and clear).
 */
class Caller {
  readonly turns: Turn[] = [];
  /** Off: no new turn starts. */
  talking = true;
  clears = 0;
  framesWhileSpeaking = 0;
  private turn: Turn | null = null;
  private state: 'idle' | 'speaking' | 'waiting' | 'hearing' = 'idle';
  private position = 0;
  private nextFrameAt = performance.now();
  private sequence = 0;
  private answerStart = 0;
  private answerFrames = 0;
  private frameTimer: NodeJS.Timeout | null = null;
  private turnTimer: NodeJS.Timeout | null = null;
  private quietTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly socket: WebSocket,
    private readonly twilio: { streamSid: string; callSid: string } | null,
    private readonly speech: Utterance,
    /** Called as each utterance begins: the fake STT's words for it. */
    private readonly words: () => void,
  ) {
    socket.on('message', (raw: Buffer, binary: boolean) => this.onMessage(raw, binary));
    this.tick();
  }

  get idle(): boolean {
    return this.state === 'idle';
  }

  /** Talks, the first time in `ms`. */
  start(ms: number): void {
    this.turnTimer = setTimeout(() => this.speak(), ms);
  }

  /** The fake STT received a Finalize on this call's stream. */
  finalizeSeen(at: number): void {
    const turn = this.turn;
    if (turn?.lastSpeechAt != null && turn.finalizeAt === null) turn.finalizeAt = at;
  }

  /** The fake STT sent a final that can end a turn (speech_final or from_finalize). */
  finalSent(at: number, transcript: string): Turn | null {
    const turn = this.turn;
    if (turn?.lastSpeechAt == null) return null;
    if (transcript) turn.wordsFinalAt ??= at;
    if (turn.finalizeAt !== null) turn.finalAt ??= at;
    return transcript ? turn : null;
  }

  hangUp(): void {
    for (const timer of [this.frameTimer, this.turnTimer, this.quietTimer]) if (timer) clearTimeout(timer);
    if (this.socket.readyState === WebSocket.OPEN) {
      const { twilio } = this;
      if (twilio) this.socket.send(JSON.stringify({ event: 'stop', sequenceNumber: String(++this.sequence), streamSid: twilio.streamSid, stop: { accountSid: ACCOUNT_SID, callSid: twilio.callSid } }));
      else this.socket.send('{"type":"hangup"}');
      this.socket.close();
    }
  }

  /** A frame every 20 ms on the call's own clock: those a late timer missed go at once, as a phone's would. */
  private tick(): void {
    const now = performance.now();
    while (this.nextFrameAt <= now) {
      this.sendFrame();
      this.nextFrameAt += FRAME_MS;
    }
    this.frameTimer = setTimeout(() => this.tick(), Math.max(1, this.nextFrameAt - performance.now()));
  }

  private sendFrame(): void {
    let index = -1;
    if (this.state === 'speaking') {
      index = this.position++;
      if (index === this.speech.lastSpeech) this.turn!.lastSpeechAt = performance.now();
      if (this.position === this.speech.frames.length) {
        this.state = 'waiting';
        this.turnTimer = setTimeout(() => this.afterAnswer(), REPLY_TIMEOUT_MS);
      }
    }
    const { twilio } = this;
    if (!twilio) return void this.socket.send(index < 0 ? SILENCE_PCM16 : this.speech.pcm16[index]);
    const payload = index < 0 ? SILENCE : this.speech.frames[index];
    const n = ++this.sequence;
    this.socket.send(
      `{"event":"media","sequenceNumber":"${n}","media":{"track":"inbound","chunk":"${n}","timestamp":"${n * FRAME_MS}","payload":"${payload}"},"streamSid":"${twilio.streamSid}"}`,
    );
  }

  private speak(): void {
    if (!this.talking) return;
    this.words();
    this.turn = { lastSpeechAt: null, finalizeAt: null, wordsFinalAt: null, finalAt: null, modelAt: null, speechAt: null, firstAudioAt: null, frames: 0, lateFrames: 0, worstLateMs: -Infinity };
    this.turns.push(this.turn);
    this.position = 0;
    this.state = 'speaking';
  }

  private onMessage(raw: Buffer, binary: boolean): void {
    const now = performance.now();
    if (binary) return this.heard(now); // a browser's audio
    const text = raw.toString();
    if (text.startsWith('{"event":"media"')) this.heard(now);
    else if (text.startsWith('{"event":"mark"') || text.startsWith('{"type":"mark"')) this.socket.send(text); // played at once
    else if (text.startsWith('{"event":"clear"') || text.startsWith('{"type":"clear"')) this.clears++;
  }

  private heard(now: number): void {
    const turn = this.turn;
    if (!turn) return;
    if (this.state === 'waiting') {
      clearTimeout(this.turnTimer!);
      this.state = 'hearing';
      turn.firstAudioAt = now;
      turn.frames = 1;
      this.answerStart = now;
      this.answerFrames = 1;
      this.quietTimer = setTimeout(() => this.afterAnswer(), QUIET_MS);
      return;
    }
    if (this.state === 'speaking') this.framesWhileSpeaking++;
    if (this.state !== 'hearing') return;
    const late = now - (this.answerStart + FRAME_MS * this.answerFrames++);
    turn.frames++;
    if (late > LATE_MS) turn.lateFrames++;
    turn.worstLateMs = Math.max(turn.worstLateMs, late);
    this.quietTimer!.refresh();
  }

  /** The answer is over (or never came): the caller speaks again after a pause of its own. */
  private afterAnswer(): void {
    this.state = 'idle';
    if (this.talking) this.turnTimer = setTimeout(() => this.speak(), 300 + Math.random() * 500);
  }
}

/**
 * The seq of a turn in the words the fake STT gives it, in the model's answer (one sentence) and
 * in the text the engine gives TTS. In letters: the engine says digits in words to the voice
 * (speech-text.ts), which would hide the seq from the speech's request and lengthen the answer.
 */
const SEQ = /pedido ([a-z]{6})\b/;
const seqWord = (seq: number) => Array.from({ length: 6 }, (_, i) => String.fromCharCode(97 + (Math.floor(seq / 26 ** (5 - i)) % 26))).join('');
/**
 * What the fake STT hears in a caller's turn: a sentence, punctuated as Deepgram's smart_format
 * writes one, so the turn waits the configured silence only (words ending in digits or
 * unpunctuated wait longer: endpointing.ts).
 */
const callerWords = (seq: number) => `Meu pedido ${seqWord(seq)}, por favor.`;
const ANSWER = 'Certo, pedido {seq}.';

/** The fakes, shared by every N; the turns they see, found by the words each turn was given. */
interface Vendors {
  deepgram: FakeDeepgram;
  openaiUrl: string;
  closeOpenAi(): Promise<void>;
  bySeq: Map<string, Turn>;
}

async function startVendors(): Promise<Vendors> {
  const bySeq = new Map<string, Turn>();
  const deepgram = await startFakeDeepgram('dg-bench');
  deepgram.finalLatencyMs = STT_FINAL_MS;
  const openai = await startFakeOpenAi('sk-bench');
  openai.transcriptionMs = HOSTED_STT_MS;
  openai.defaultTranscription = () => callerWords(++transcriptSeq);
  openai.defaultChat = (body) => {
    const at = performance.now();
    const said = String([...body.messages].reverse().find((m: { role: string }) => m.role === 'user')?.content ?? '');
    const seq = SEQ.exec(said)?.[1];
    const turn = seq ? bySeq.get(seq) : undefined;
    if (turn) turn.modelAt ??= at;
    return { text: ANSWER.replace('{seq}', seq ?? seqWord(0)), firstTokenMs: LLM_FIRST_TOKEN_MS };
  };
  openai.defaultSpeech = (body) => {
    const at = performance.now();
    const seq = SEQ.exec(String(body.input))?.[1];
    const turn = seq ? bySeq.get(seq) : undefined;
    if (turn) turn.speechAt ??= at;
    return { firstByteMs: TTS_FIRST_BYTE_MS };
  };
  // The tests' fake keeps every request; a long run would hold them all.
  const forget = setInterval(() => {
    openai.chatRequests.length = 0;
    openai.speechRequests.length = 0;
    openai.transcriptionRequests.length = 0;
  }, 1000);
  return {
    deepgram,
    openaiUrl: openai.url,
    bySeq,
    closeOpenAi: async () => {
      clearInterval(forget);
      await openai.close();
    },
  };
}

/** Stamps what the fake STT receives and sends on a call's stream, for its turns. */
async function watch(session: DeepgramSession, call: Caller, bySeq: Map<string, Turn>): Promise<void> {
  let controls = 0;
  let sent = 0;
  while (session.closedWith === null) {
    await session.until(() => session.controls.length > controls || session.sent.length > sent || session.closedWith !== null, 2 ** 31 - 1);
    const at = performance.now();
    for (; controls < session.controls.length; controls++) if (session.controls[controls].type === 'Finalize') call.finalizeSeen(at);
    for (; sent < session.sent.length; sent++) {
      const message = session.sent[sent];
      if (message.type !== 'Results' || !message.is_final || !(message.speech_final || message.from_finalize)) continue;
      const transcript: string = message.channel.alternatives[0].transcript;
      const turn = call.finalSent(at, transcript);
      const seq = SEQ.exec(transcript)?.[1];
      if (turn && seq) bySeq.set(seq, turn);
    }
    // The fake keeps what it heard; this run does not need it.
    session.sent.length = sent = 0;
    session.controls.length = controls = 0;
  }
}

interface Setup {
  root: string;
  databaseUrl: string;
  node: string;
  env: NodeJS.ProcessEnv;
  /** The assistants' numbers: without noise cancellation, and with it; and the first one's id (its web calls). */
  numbers: { plain: string; cancelled: string; hosted: string };
  plainAssistant: number;
  /** The account's API token. */
  token: string;
  vendors: Vendors;
  speech: Utterance;
  log: (line: string) => void;
}

let transcriptSeq = 0;
let callSeq = 0;

/** A Twilio call to the assistant's number, answered on the voice URL, its media stream open and its STT stream with it. */
async function ring(setup: Setup, port: number, number: string, hostedStt = false): Promise<Caller | null> {
  // Admission control may turn the call away: the caller hears busy.
  const answered = await incomingCall(port, TWILIO, `+55119${String(10_000_000 + ++callSeq)}`, number);
  if (!answered) return null;
  const { socket, streamSid, callSid } = answered;
  // A hosted transcriber: no Deepgram stream; the fake server's words for each turn come in the order of its requests.
  if (hostedStt) return new Caller(socket, { streamSid, callSid }, setup.speech, () => {});
  const session = await setup.vendors.deepgram.session(10_000);
  const { deepgram, bySeq } = setup.vendors;
  const call = new Caller(socket, { streamSid, callSid }, setup.speech, () => deepgram.transcripts.push(callerWords(++transcriptSeq)));
  void watch(session, call, bySeq).catch((error) => setup.log(`pipeline: watching an STT stream failed: ${(error as Error).message}`));
  return call;
}

/** A web call to the assistant, started through the API as a page's backend would, its socket open as a browser opens it. */
async function ringWeb(setup: Setup, port: number, assistantId: number): Promise<Caller> {
  const res = await fetch(`http://127.0.0.1:${port}/api/user/calls/web`, {
    method: 'POST',
    headers: { authorization: `Bearer ${setup.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ assistant_id: assistantId }),
  });
  const started = (await res.json()) as { data?: { call_id: number; token: string } };
  if (res.status !== 201 || !started.data) throw new Error(`pipeline: the web call was refused: ${JSON.stringify(started)}`);
  const socket = new WebSocket(`ws://127.0.0.1:${port}/calls/web/${started.data.call_id}?token=${started.data.token}`, { perMessageDeflate: false });
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const session = await setup.vendors.deepgram.session(10_000);
  const { deepgram, bySeq } = setup.vendors;
  const call = new Caller(socket, null, setup.speech, () => deepgram.transcripts.push(callerWords(++transcriptSeq)));
  void watch(session, call, bySeq).catch((error) => setup.log(`pipeline: watching an STT stream failed: ${(error as Error).message}`));
  return call;
}

/** The server's event-loop delay since the last scrape (prom-client resets it on each), in ms. */
async function serverLoopDelay(port: number): Promise<{ p99: number | null; max: number | null }> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const read = (name: string) => {
    const value = new RegExp(`^vozgate_nodejs_eventloop_lag_${name}_seconds (\\S+)$`, 'm').exec(text)?.[1];
    return value === undefined ? null : round(Number(value) * 1000);
  };
  return { p99: read('p99'), max: read('max') };
}

/** A thread's CPU time so far (user and system), in ms: the server's main thread is its event loop, where the calls' JavaScript runs. */
function threadCpuMs(pid: number, tid: number): number {
  const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** The machine's CPU time so far, busy and in all, in ticks (/proc/stat's first line). */
function machineTicks(): { busy: number; total: number } {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const ticks = fields.slice(0, 8).map(Number); // user nice system idle iowait irq softirq steal
  const total = ticks.reduce((sum, n) => sum + n, 0);
  return { busy: total - ticks[3] - ticks[4], total };
}

async function untilIdle(calls: Caller[], ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!calls.every((call) => call.idle) && Date.now() < deadline) await sleep(50);
}

const stats = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50_ms: round(percentile(sorted, 50)), p99_ms: round(percentile(sorted, 99)) };
};

/**
 * Where PostgreSQL's write-ahead log is now, just after an analysis, a vacuum and a checkpoint.
 * The analysis: the set-up's fresh tables are otherwise analyzed by autovacuum's first pass over
 * the new database, which fell into the window or not by chance (about 55 kB a call at 10 calls,
 * whatever the calls write). The checkpoint: the pages the window touches each log their first
 * change whole, in every run alike, and no checkpoint the set-up left pending falls in the window.
 * The statements' own counts start from zero there (pg_stat_statements, where it is loaded).
 */
async function walLsn(databaseUrl: string): Promise<string> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    await db.query('analyze');
    await db.query('vacuum'); // the analysis's own dead catalog rows: not left to an autovacuum in the window
    await db
      .query('create extension if not exists pg_stat_statements')
      .then(() => db.query('select pg_stat_statements_reset()'))
      .catch(() => undefined);
    await db.query('checkpoint');
    return (await db.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn')).rows[0].lsn;
  } finally {
    await db.end();
  }
}

/**
 * Bytes of write-ahead log since `lsn`, and of them what the database's statements wrote (null
 * without pg_stat_statements); the statements that wrote most are logged.
 */
async function walSince(databaseUrl: string, lsn: string, log: (line: string) => void): Promise<{ bytes: number; statements: number | null }> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const bytes = Number((await db.query<{ bytes: string }>('select pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::bigint as bytes', [lsn])).rows[0].bytes);
    const statements = await db
      .query<{ calls: string; wal_records: string; wal_fpi: string; wal_bytes: string; query: string }>(
        `select calls, wal_records, wal_fpi, wal_bytes, left(regexp_replace(query, '\\s+', ' ', 'g'), 100) as query
           from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database()) and wal_bytes > 0 order by wal_bytes desc`,
      )
      .then(({ rows }) => rows)
      .catch(() => null);
    if (!statements) return { bytes, statements: null };
    for (const row of statements.slice(0, 5)) log(`pipeline: WAL ${row.wal_bytes} bytes, ${row.wal_records} records (${row.wal_fpi} whole pages) in ${row.calls} runs of: ${row.query}`);
    return { bytes, statements: statements.reduce((sum, row) => sum + Number(row.wal_bytes), 0) };
  } finally {
    await db.end();
  }
}

/** `calls` calls on a fresh server for `seconds`; with `profileDir`, under `--cpu-prof`, and the profile's summary. */
async function runLevel(
  setup: Setup,
  calls: number,
  cancelled: boolean,
  seconds: number,
  profileDir?: string,
  transport: Transport = 'twilio',
  target: 'vozgate' | 'floor' = 'vozgate',
  /** Admission rows: the calls are offered one every ADMISSION_OFFER_MS, on a machine whose other core spins. */
  admission?: { offerEveryMs: number; refusing: boolean },
  hostedStt = false,
): Promise<{ level: PipelineLevel; profile?: string }> {
  const { log } = setup;
  const flags = ['--inspect=127.0.0.1:0', ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [])];
  const server =
    target === 'floor'
      ? await start([...flags, path.join(setup.root, 'dist/bench/pipeline-floor.js')], setup.env, /REST\s+http:\/\/[^:]+:(\d+)\/api/, setup.node)
      : await startVozgate(setup.root, setup.databaseUrl, setup.env, flags, setup.node);
  const pid = server.child.pid!;
  // The machine's other core kept busy, as a shared machine's is.
  const spinner = admission ? spawn(setup.node, ['-e', 'for (;;);'], { stdio: 'ignore' }) : null;
  const number = hostedStt ? setup.numbers.hosted : cancelled ? setup.numbers.cancelled : setup.numbers.plain;
  const dial = () => (transport === 'web' ? ringWeb(setup, server.port, setup.plainAssistant) : ring(setup, server.port, number, hostedStt));
  const phones: Caller[] = [];
  let refused = 0;
  try {
    // One call, one turn: the VAD's model, the clients and the code paths warm, as a running server's are.
    const first = await dial();
    if (!first) throw new Error('pipeline: the warm-up call was refused');
    first.start(0);
    await sleep(500);
    await untilIdle([first], 15_000);
    first.talking = false;
    if (!first.turns[0]?.firstAudioAt) throw new Error('pipeline: the warm-up call was never answered; the server log: ' + server.logFile);
    first.hangUp();
    await sleep(1000);
    const baseline = { live: (await collectGarbage(server)).live_mb, rss: rssKb(pid) };

    log(`pipeline: ringing ${calls} ${transport === 'web' ? 'web ' : ''}calls${cancelled ? ' (noise cancellation)' : ''}${hostedStt ? ' (hosted STT)' : ''}${target === 'floor' ? ' on the floor' : ''}`);
    for (let i = 0; i < calls; i++) {
      const offeredAt = performance.now();
      const call = await dial();
      if (!call) refused++;
      else {
        call.start(Math.random() * FIRST_TURN_SPREAD_MS);
        phones.push(call);
      }
      if (admission) await sleep(Math.max(0, admission.offerEveryMs - (performance.now() - offeredAt)));
    }
    if (admission) log(`pipeline: ${phones.length} of ${calls} calls taken, ${refused} refused`);
    await sleep(SETTLE_MS);

    log(`pipeline: ${seconds} s of conversation on ${calls} calls`);
    const benchLoop = monitorEventLoopDelay({ resolution: 1 });
    // Read (and so reset) before the window: what ringing the calls and their first seconds cost the loop.
    const ringing = await serverLoopDelay(server.port);
    if (ringing.max !== null) log(`pipeline: the server's event loop before the window: delay p99 ${ringing.p99} ms, max ${ringing.max} ms`);
    benchLoop.enable();
    const from = performance.now();
    const fromUs = monotonicUs();
    const cpuBefore = cpuMs(pid);
    const mainBefore = threadCpuMs(pid, pid);
    const benchBefore = process.cpuUsage();
    const machineBefore = machineTicks();
    let rssPeak = 0;
    const sampling = setInterval(() => (rssPeak = Math.max(rssPeak, rssKb(pid))), 250);
    const walBefore = await walLsn(setup.databaseUrl);
    await sleep(seconds * 1000);
    const wal = await walSince(setup.databaseUrl, walBefore, log);
    const walBytes = wal.bytes;
    clearInterval(sampling);
    const cpu = cpuMs(pid) - cpuBefore;
    const main = threadCpuMs(pid, pid) - mainBefore;
    const benchCpu = process.cpuUsage(benchBefore);
    const machineAfter = machineTicks();
    const to = performance.now();
    const toUs = monotonicUs();
    const serverLoop = await serverLoopDelay(server.port);
    benchLoop.disable();
    for (const call of phones) call.talking = false;
    await untilIdle(phones, REPLY_TIMEOUT_MS + 2000);
    const live = (await collectGarbage(server)).live_mb;
    const collected = rssKb(pid);

    const turns = phones.flatMap((call) => call.turns).filter((turn) => turn.lastSpeechAt !== null && turn.lastSpeechAt >= from && turn.lastSpeechAt <= to);
    const answered = turns.filter((turn) => turn.firstAudioAt !== null);
    const v2v = answered.map((turn) => turn.firstAudioAt! - turn.lastSpeechAt!);
    const silence = endpointSilenceMs(ENDPOINT_SENSITIVITY);
    const fixed = silence + STT_FINAL_MS + LLM_FIRST_TOKEN_MS + TTS_FIRST_BYTE_MS;
    const traced = answered.filter((turn) => turn.finalAt !== null && turn.modelAt !== null && turn.speechAt !== null);
    const decided = turns.filter((turn) => turn.finalizeAt !== null);
    const frames = answered.reduce((sum, turn) => sum + turn.frames, 0);
    const late = answered.reduce((sum, turn) => sum + turn.lateFrames, 0);
    const v2vStats = stats(v2v);
    const addedStats = stats(v2v.map((ms) => ms - fixed));
    const vadEnd = stats(decided.map((t) => t.finalizeAt! - t.lastSpeechAt!));
    // The per-call figures are over the calls the process took.
    const taken = phones.length;
    const level: PipelineLevel = {
      calls: taken,
      ...(admission ? { busy_core: true } : {}),
      ...(admission?.refusing ? { offered: calls, refused } : {}),
      target,
      ...(hostedStt ? { hosted_stt: true } : {}),
      transport,
      noise_cancellation: cancelled,
      seconds,
      turns: turns.length,
      unanswered: turns.length - answered.length,
      v2v_p50_ms: v2vStats.p50_ms,
      v2v_p99_ms: v2vStats.p99_ms,
      added_p50_ms: addedStats.p50_ms,
      added_p99_ms: addedStats.p99_ms,
      parts: {
        to_stt_final: stats(traced.map((t) => t.finalAt! - t.lastSpeechAt! - silence - STT_FINAL_MS)),
        final_to_model: stats(traced.map((t) => t.modelAt! - t.finalAt!)),
        model_to_tts: stats(traced.map((t) => t.speechAt! - t.modelAt! - LLM_FIRST_TOKEN_MS)),
        tts_to_first_frame: stats(traced.map((t) => t.firstAudioAt! - t.speechAt! - TTS_FIRST_BYTE_MS)),
      },
      vad_end_p50_ms: vadEnd.p50_ms,
      vad_end_p99_ms: vadEnd.p99_ms,
      vad_after_stt_share: decided.length ? round((decided.filter((t) => t.wordsFinalAt !== null && t.wordsFinalAt < t.finalizeAt!).length / decided.length) * 100) / 100 : 0,
      cpu_core_pct_per_call: Math.round((cpu / (to - from) / taken) * 10000) / 100,
      server_main_thread_pct: Math.round((main / (to - from)) * 1000) / 10,
      bench_cpu_pct: Math.round(((benchCpu.user + benchCpu.system) / 1000 / (to - from)) * 1000) / 10,
      machine_busy_pct: Math.round(((machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total)) * 1000) / 10,
      cores: cpus().length,
      rss_mb_per_call: Math.round(((collected - baseline.rss) / 1024 / taken) * 100) / 100,
      peak_rss_mb_per_call: Math.round(((rssPeak - baseline.rss) / 1024 / taken) * 100) / 100,
      live_heap_kb_per_call: Math.round(((live - baseline.live) * 1024) / taken),
      frames,
      late_frames: late,
      late_share: frames ? Math.round((late / frames) * 10000) / 10000 : 0,
      worst_late_ms: answered.length ? round(Math.max(...answered.map((turn) => turn.worstLateMs))) : 0,
      clears: phones.reduce((sum, call) => sum + call.clears, 0),
      frames_while_speaking: phones.reduce((sum, call) => sum + call.framesWhileSpeaking, 0),
      server_loop_p99_ms: serverLoop.p99,
      server_loop_max_ms: serverLoop.max,
      bench_loop_p99_ms: round(benchLoop.percentile(99) / 1e6),
      wal_bytes_per_call: Math.round(walBytes / taken),
      wal_bytes_per_turn: turns.length ? Math.round(walBytes / turns.length) : 0,
      ...(wal.statements === null ? {} : { wal_statement_bytes_per_call: Math.round(wal.statements / taken) }),
    };
    log(`pipeline: ${calls} calls: ${JSON.stringify(level)}`);
    // Where each unanswered turn stopped, and where each answered a second or more late went: what the fakes saw of it, in ms after its last speech frame.
    for (const [c, call] of phones.entries()) {
      for (const turn of call.turns) {
        if (!turns.includes(turn) || (turn.firstAudioAt !== null && turn.firstAudioAt - turn.lastSpeechAt! - fixed < 1000)) continue;
        const after = (at: number | null) => (at === null ? 'never' : `${round(at - turn.lastSpeechAt!)} ms`);
        const clock = new Date(performance.timeOrigin + turn.lastSpeechAt!).toISOString();
        log(
          `pipeline: call ${c}'s turn ${call.turns.indexOf(turn) + 1} ${turn.firstAudioAt === null ? 'unanswered' : 'late'} (its last speech at ${clock}): Finalize ${after(turn.finalizeAt)}, final with words ${after(turn.wordsFinalAt)}, ` +
            `final ${after(turn.finalAt)}, model ${after(turn.modelAt)}, speech ${after(turn.speechAt)}, first frame ${after(turn.firstAudioAt)}`,
        );
      }
    }
    if (!profileDir) return { level };
    for (const call of phones) call.hangUp();
    // The profile is written as the process exits.
    const exited = new Promise((resolve) => server.child.once('exit', resolve));
    server.child.kill('SIGINT');
    await exited;
    const [file] = (await fs.readdir(profileDir)).filter((name) => name.endsWith('.cpuprofile'));
    const profile = JSON.parse(await fs.readFile(path.join(profileDir, file), 'utf8')) as CpuProfile;
    const title = `Profile: the pipeline engine, ${calls} calls${cancelled ? ' with noise cancellation' : ''} (${turns.length} turns in ${seconds} s)`;
    return { level, profile: profileMarkdown(title, summariseProfile(profile, fromUs, toUs), turns.length) };
  } finally {
    spinner?.kill('SIGKILL');
    for (const call of phones) call.hangUp();
    if (server.child.exitCode === null) {
      await sleep(500); // the calls' ends reach the server
      const exited = new Promise((resolve) => server.child.once('exit', resolve));
      server.child.kill('SIGTERM');
      await exited;
    }
  }
}

/**
 * The scenario: every N (or, with `profile`, 50 calls, then 10 with noise cancellation, under
 * `--cpu-prof`, their summaries written to bench/results/profiles/pipeline.md; the figures
 * under a profiler are not for the table).
 */
export async function runPipelineScenario(
  adminUrl: string,
  root: string,
  options: { quick: boolean; profile: boolean; webcall?: boolean; calls?: number; seconds?: number; noiseCalls?: number[]; noiseRounds?: number; admission?: boolean; hostedStt?: boolean },
  log: (line: string) => void,
  node = process.execPath,
): Promise<PipelineResult> {
  const database = 'vozgate_bench_pipeline';
  const databaseUrl = await freshDatabase(adminUrl, database);
  const orm = await initOrm({ databaseUrl });
  const vendors = await startVendors();
  // Twilio's REST API, for a hang-up from the engine.
  const twilioApi = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  await new Promise<void>((resolve) => twilioApi.listen(0, '127.0.0.1', resolve));
  try {
    const { account, token } = await createAccount(orm.em.fork(), { name: 'Pipeline bench', balance: '100000' });
    const numbers = { plain: '+5511955000011', cancelled: '+5511955000012', hosted: '+5511955000013' };
    const env: NodeJS.ProcessEnv = {
      PUBLIC_URL,
      TELEPHONY_PROVIDER: 'twilio',
      TWILIO_ACCOUNT_SID: ACCOUNT_SID,
      TWILIO_AUTH_TOKEN: AUTH_TOKEN,
      TWILIO_API_BASE: `http://127.0.0.1:${(twilioApi.address() as AddressInfo).port}`,
      DEEPGRAM_API_KEY: 'dg-bench',
      DEEPGRAM_URL: vendors.deepgram.url,
      OPENAI_API_KEY: 'sk-bench',
      OPENAI_BASE_URL: vendors.openaiUrl,
      // `--hosted-stt`: the fake OpenAI's /audio/transcriptions as a hosted Whisper server.
      STT_PROVIDERS: JSON.stringify({ whisper: { base_url: vendors.openaiUrl, key_env: 'OPENAI_API_KEY', model: 'Systran/faster-whisper-small' } }),
      METRICS_TOKEN,
      // Far above the calls of all the runs together (each hangs up, but a call's end settles in the background).
      PLAN_MAX_PARALLEL_CALLS: '1000',
      LOG_LEVEL: 'warn',
      // Every row measures the calls it offers: admission control is on only in `--admission`'s own row.
      VOICE_MAX_LOAD_DELAY_MS: '0',
    };
    const [{ id: voice }] = await orm.em.fork().execute(`select id from voices where mode = 'pipeline' order by id limit 1`);
    const setup: Setup = { root, databaseUrl, node, env, numbers, plainAssistant: 0, token, vendors, speech: utterance(root), log };
    // The assistants, one per number, made through the API as an account would.
    const server = await startVozgate(root, databaseUrl, env, [], node);
    try {
      for (const [number, cancelled, transcriber] of [
        [numbers.plain, false, 'deepgram'],
        [numbers.cancelled, true, 'deepgram'],
        [numbers.hosted, false, 'whisper'],
      ] as const) {
        const phone = await addPhoneNumber(orm.em.fork(), { accountId: account.id, number, smsEnabled: false, expiresAt: null });
        const created = await fetch(`http://127.0.0.1:${server.port}/api/user/assistant`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            assistant_name: 'Bench',
            voice_id: voice,
            language: 'Portuguese',
            llm_model: 'gpt-4o-mini',
            calls_direction: 'receive',
            engine_type: 'pipeline',
            timezone: 'America/Sao_Paulo',
            initial_message: 'Olá!',
            system_prompt: 'Você confirma pedidos. Seja breve.',
            phone_number_id: phone.id,
            who_speaks_first: 'Customer',
            endpoint_type: 'vad',
            endpoint_sensitivity: ENDPOINT_SENSITIVITY,
            noise_cancellation: cancelled,
            ambient_sound_volume: 0,
            filler_audios: false,
            max_call_duration: 1200,
            re_engagement_interval: 600,
            max_silence_duration: 120,
            record_call: false,
            transcriber,
          }),
        });
        if (created.status !== 201) throw new Error(`pipeline: the assistant was refused: ${await created.text()}`);
        if (number === numbers.plain) setup.plainAssistant = ((await created.json()) as { data: { id: number } }).data.id;
      }
    } finally {
      const exited = new Promise((resolve) => server.child.once('exit', resolve));
      server.child.kill('SIGTERM');
      await exited;
    }

    const seconds = options.seconds ?? SECONDS[options.quick ? 'quick' : 'full'];
    const levels: PipelineLevel[] = [];
    if (options.hostedStt) {
      // `--hosted-stt [--calls N] [--rounds R]`: N calls (10) on Deepgram, on a hosted transcription server and on the floor, in turns.
      const calls = options.calls ?? 10;
      for (let round = 0; round < (options.noiseRounds ?? 1); round++) {
        levels.push((await runLevel(setup, calls, false, seconds)).level);
        levels.push((await runLevel(setup, calls, false, seconds, undefined, 'twilio', 'vozgate', undefined, true)).level);
        levels.push((await runLevel(setup, calls, false, seconds, undefined, 'twilio', 'floor')).level);
      }
    } else if (options.admission) {
      // `--admission [--calls N] [--rounds R]`: with the machine's other core kept busy, 50 calls
      // (the reference, admission control off), then N (100) offered one every ADMISSION_OFFER_MS to one process with
      // admission control: those it takes keep their latency, the rest are refused.
      for (let round = 0; round < (options.noiseRounds ?? 1); round++) {
        // The server's default bound (the variable unset).
        const { VOICE_MAX_LOAD_DELAY_MS: _off, ...withDefault } = setup.env;
        const on = { ...setup, env: withDefault };
        levels.push((await runLevel(setup, ADMISSION_REFERENCE_CALLS, false, seconds, undefined, 'twilio', 'vozgate', { offerEveryMs: ADMISSION_OFFER_MS, refusing: false })).level);
        levels.push((await runLevel(on, options.calls ?? ADMISSION_OFFERED_CALLS, false, seconds, undefined, 'twilio', 'vozgate', { offerEveryMs: ADMISSION_OFFER_MS, refusing: true })).level);
      }
    } else if (options.calls) {
      // `--calls N`: that level alone (a small run, e.g. for the write-ahead log a call costs).
      levels.push((await runLevel(setup, options.calls, false, seconds)).level);
    } else if (options.profile) {
      const profiles: string[] = [];
      for (const [calls, cancelled] of [[50, false], [NOISE_CANCELLED_CALLS, true]] as const) {
        const dir = path.join(root, 'bench', '.cache', 'profiles', `pipeline-${calls}${cancelled ? '-nc' : ''}`);
        await fs.rm(dir, { recursive: true, force: true });
        const { level, profile } = await runLevel(setup, calls, cancelled, seconds, dir);
        levels.push(level);
        profiles.push(profile!);
      }
      const out = path.join(root, 'bench', 'results', 'profiles');
      await fs.mkdir(out, { recursive: true });
      const markdown = `${profiles.join('\n')}\nThe main thread only (onnxruntime-node runs Silero there); under the profiler. Made by \`npm run bench -- --only pipeline --profile${options.quick ? ' --quick' : ''}\`.\n`;
      await fs.writeFile(path.join(out, 'pipeline.md'), markdown);
      process.stdout.write(markdown);
    } else if (options.webcall) {
      // The browser's path beside the phone's, on the same engine and vendors, in turns: the
      // machine's drift falls on both alike, and the rounds show the spread.
      for (let round = 0; round < WEBCALL_ROUNDS; round++) {
        for (const transport of ['twilio', 'web'] as const) levels.push((await runLevel(setup, WEBCALL_CALLS, false, seconds, undefined, transport)).level);
      }
    } else if (options.noiseCalls) {
      // Noise cancellation alone, at the calls asked, in rounds on fresh servers (the machine's drift shows as their spread),
      // each round beside the floor at the same calls: what the harness and the machine cost then.
      for (let round = 0; round < (options.noiseRounds ?? 1); round++) {
        for (const calls of options.noiseCalls) {
          levels.push((await runLevel(setup, calls, true, seconds)).level);
          levels.push((await runLevel(setup, calls, false, seconds, undefined, 'twilio', 'floor')).level);
        }
      }
    } else {
      for (const calls of LEVELS) levels.push((await runLevel(setup, calls, false, seconds)).level);
      levels.push((await runLevel(setup, NOISE_CANCELLED_CALLS, true, seconds)).level);
      // The floor at the same load: what the harness, the fakes and the machine cost a turn.
      for (const calls of FLOOR_LEVELS) levels.push((await runLevel(setup, calls, false, seconds, undefined, 'twilio', 'floor')).level);
    }
    return {
      node: execFileSync(node, ['--version'], { encoding: 'utf8' }).trim(),
      endpoint_silence_ms: endpointSilenceMs(ENDPOINT_SENSITIVITY),
      stt_final_ms: STT_FINAL_MS,
      llm_first_token_ms: LLM_FIRST_TOKEN_MS,
      tts_first_byte_ms: TTS_FIRST_BYTE_MS,
      utterance_ms: setup.speech.frames.length * FRAME_MS,
      answer_ms: ANSWER.replace('{seq}', seqWord(0)).length * MS_PER_CHARACTER,
      levels,
    };
  } finally {
    await vendors.deepgram.close();
    await vendors.closeOpenAi();
    await new Promise((resolve) => twilioApi.close(resolve));
    await orm.close();
    await dropDatabase(adminUrl, database);
  }
}
