import type { RawData, WebSocket } from 'ws';
import { jsonMessage, stringField, UNSUPPORTED_MESSAGE } from '../../lib/json-message';
import { DTMF_KEY } from '../codecs/dtmf';
import { claimWebCall, webCallEndedByCaller } from '../../modules/calls/call.web';
import { EventBus, type BusEvent } from '../../modules/events/event.bus';
import type { MediaEnd, MediaOut, VoiceEngine } from '../engine';
import { engineSetup } from '../engine.setup';
import { startEngine, type EngineDeps } from '../engines';
import { LiveCall, type LiveCallDeps } from '../live-call';
import { AudioPacer, closeForPace, EngineFeed } from '../pacing';
import { EarlyAudio } from './early-audio';
import { MAX_EARLY_KEYS } from './twilio-media';

/**
 * The browser transport of web calls (design.md, "Web calls"): the WebSocket a page opens at
 * `/calls/web/{call_id}?token=..`, and the one place that knows its messages.
 *
 * - Audio both ways: binary frames of 16 kHz 16-bit little-endian mono PCM, of any length: the
 *   seam's audio as it is (the engines hear and speak web calls at 16 kHz).
 * - From vozgate, JSON: `state` (`connected`, then `speaking` / `listening` as the assistant's
 *   audio starts and is all played), `transcript` (`speaker`, `text`, `final`: the words so far
 *   of a turn, then the turn as recorded), `mark` (`name`: echo it back once the audio before it
 *   has played), `clear` (drop the audio not played yet: the caller interrupted), `ended`
 *   (`status`, `reason`, `detail`: why the engine failed in the server's words or null,
 *   `duration`, `total_cost`), after which the socket closes. A final
 *   assistant turn carries `latency_ms`: from the caller's end of speech to its first audio.
 * - From the page, JSON: `mark` (the echo), `hangup`, `dtmf` (`digit`: a key of the keypad,
 *   one of 0-9 * # A-D, gathered by the engine into a caller's turn). Closing the socket hangs up
 *   too. A text frame that is not a JSON object with a string `type`, or a `dtmf` without such a
 *   `digit`, closes the socket (1003), which hangs up; a `type` it does not know is ignored.
 *
 * Audio faster than real time beyond a burst is dropped, and a page that keeps sending it is
 * closed with 1008 (src/voice/pacing.ts); the call then ends as if the page had hung up.
 *
 * The token is spent by the first connection: a wrong, used or expired one, another call's, or
 * a call that is over is closed with 1008 (policy) before anything runs or is charged.
 */

/** Samples per second of the browser's audio. */
export const BROWSER_SAMPLE_RATE = 16_000 as const;
/** WebSocket close code of a refused connection (policy violation). */
const REFUSED = 1008;
/** How long after the last audio played the assistant counts as listening (its frames come 20 ms apart). */
const QUIET_MS = 150;
/** A frame of audio larger than this is not a browser's (a second of 16 kHz PCM16 is 32 KB). */
export const MAX_FRAME_BYTES = 64 * 1024;

export type WebCallDeps = LiveCallDeps & EngineDeps;

/**
 * The samples of little-endian PCM16 bytes (an odd last byte is dropped), read in place when
 * they are aligned. Typed arrays are in the machine's byte order: little-endian on every
 * platform Node supports for this service (x64, arm64).
 */
function pcm16(bytes: Buffer): Int16Array {
  const count = bytes.length >> 1;
  if (bytes.byteOffset % 2 === 0) return new Int16Array(bytes.buffer, bytes.byteOffset, count);
  return new Int16Array(Uint8Array.prototype.slice.call(bytes, 0, count * 2).buffer);
}

export class WebCallSession {
  private engine: VoiceEngine | null = null;
  private engineEnded = false;
  /** Set once the token is spent: from then on, whatever happens, the call is settled. */
  private callId = 0;
  private live: LiveCall | null = null;
  /** The caller's audio while the engine starts. */
  private readonly early = new EarlyAudio<Buffer>();
  /** The keys the caller pressed while the engine starts. */
  private readonly earlyKeys: string[] = [];
  private readonly pace = new AudioPacer('browser');
  /** What passed, for the engine; a frame that waits is copied, as the socket's buffer is not ours to keep. */
  private readonly feed = new EngineFeed<Buffer>(
    (bytes) => {
      if (this.engine && !this.over) this.toEngine(this.engine, bytes);
    },
    (bytes) => Buffer.from(bytes),
  );
  /** Closed for sending audio too fast: what it still sends is ignored. */
  private tooFast = false;
  /** The engine's audio has reached the page: the call is charged its first minute however short. */
  private engineSpoke = false;
  private speaking = false;
  /** Set once the page has played all the audio sent: the assistant listens unless more comes. */
  private quietSince: NodeJS.Timeout | null = null;
  /** The last mark sent: once the page has played up to it, the assistant is listening. */
  private lastMark: string | null = null;
  /** The call is over for this socket (the page hung up, the call ended, or the process stops). */
  private over = false;
  /** The page asked to hang up (or left) while its token was being checked. */
  private hangupWanted = false;
  /** The page has been told how the call ended. */
  private told = false;
  private abandoned = false;
  private closed = false;
  private unlisten: (() => void) | null = null;
  private timeLimit: NodeJS.Timeout | null = null;
  /** What the session is doing now (its start, its end), for a shutdown to wait on. */
  work: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly runtime: WebCallDeps,
    private readonly socket: WebSocket,
    private readonly events: () => Promise<EventBus>,
  ) {
    socket.on('message', (data, binary) => this.onMessage(data, binary));
    socket.on('error', () => {}); // the close that follows ends the call
    socket.once('close', () => {
      this.closed = true;
      this.pace.count();
      this.track(this.callerHungUp());
    });
  }

  start(callId: number, token: string): void {
    this.track(this.run(callId, token));
  }

  private track(work: Promise<unknown>): void {
    this.work = Promise.all([this.work, work.catch(() => undefined)]);
  }

  private async run(callId: number, token: string): Promise<void> {
    const { orm, lifecycle, logger } = this.runtime;
    let call: Awaited<ReturnType<typeof claimWebCall>> = null;
    try {
      call = Number.isSafeInteger(callId) && token ? await claimWebCall(orm.em, lifecycle, callId, token) : null;
    } catch (error) {
      logger.error('voice: a web call could not be claimed', error, { call_id: callId });
    }
    if (!call) return this.refuse();
    // The token is spent and the call answered: every way out of here settles it.
    this.callId = callId;
    const live = new LiveCall(this.runtime, callId, {
      turn: (turn) => {
        if (turn.speaker !== 'customer' && turn.speaker !== 'assistant') return;
        this.send({ type: 'transcript', speaker: turn.speaker, text: turn.text, final: true, latency_ms: turn.latency?.first_audio_ms ?? null });
      },
      // vozgate ended the call here (the engine, the time limit): the page is told at once, whatever the event bus does.
      hungUp: () => this.track(this.tell()),
    });
    this.live = live;
    try {
      if (this.abandoned) return void (await live.hangup('media-lost'));
      if (this.hangupWanted || this.closed) return void (await this.callerHungUp());
      try {
        const bus = await this.events();
        this.unlisten = bus.listen(call.account_id, (event) => this.onEvent(event));
      } catch (error) {
        // The call goes on: its own ends still reach the page; one ended on another process is found at its time limit.
        logger.error('voice: a web call cannot hear of its end from other processes (event bus)', error, { call_id: callId });
      }
      this.send({ type: 'state', state: 'connected', call_id: callId });

      const setup = await engineSetup(orm.em.fork(), call);
      if (this.over) return;
      if (setup) {
        // Counted from the answer; unref'd: a call never keeps the process alive on its own.
        const left = setup.assistant.max_call_duration * 1000 - (Date.now() - Date.parse(call.answered_at ?? new Date().toISOString()));
        this.timeLimit = setTimeout(() => this.track(live.hangup('time-limit')), Math.max(0, left));
        this.timeLimit.unref();
      }
      const engine = setup ? await startEngine(this.runtime, live, setup, this.out()) : 'the call has no assistant';
      if (typeof engine === 'string') {
        logger.error(`voice: no engine for this web call (${engine})`, undefined, { call_id: callId, engine_type: setup?.assistant.engine_type ?? null });
        live.failed(engine);
        return void (await live.hangup('engine-failed'));
      }
      this.engine = engine;
      // The page left, or the call ended, while the engine started.
      if (this.over) return void (await this.endEngine('customer'));
      this.early.drain((bytes) => this.toEngine(engine, bytes));
      for (const key of this.earlyKeys.splice(0)) engine.digit(key);
      this.send({ type: 'state', state: 'listening' });
    } catch (error) {
      logger.error('voice: a web call could not start', error, { call_id: callId });
      await live.hangup('engine-failed').catch(() => {});
    }
  }

  /**
   * The process stops: the call ends with its media lost, charged for the time it ran (left to
   * the sweeper, it would be charged max_call_duration). A call whose token is being checked is
   * settled as soon as the check is done (see run()).
   */
  async abandon(): Promise<void> {
    this.abandoned = true;
    const wasOver = this.over;
    this.over = true;
    this.stop();
    this.socket.terminate();
    if (!wasOver && this.live) {
      await this.endEngine('shutdown');
      await this.live.hangup('media-lost');
    }
    await this.work;
  }

  private refuse(): void {
    this.runtime.logger.warn('voice: refused a web call connection', { why: 'a wrong, used or expired token, or a call that is over' });
    this.over = true;
    this.socket.close(REFUSED, 'Forbidden');
  }

  private onMessage(data: RawData, binary: boolean): void {
    // Closing: what the page sent after it no longer counts (and a burst of garbage logs once).
    if (!this.canSend()) return;
    try {
      if (binary) this.audio(data as Buffer);
      else this.control(data);
    } catch (error) {
      // A message this code did not foresee ends this call, never the process.
      this.runtime.logger.error('voice: a web call message failed', error, { call_id: this.callId || null });
      this.socket.close(UNSUPPORTED_MESSAGE, 'Unsupported message');
    }
  }

  private control(data: RawData): void {
    this.feed.flush();
    const message = jsonMessage(data, 'type');
    if (!message) {
      this.runtime.logger.warn('voice: closed a web call on a message that is not a JSON object with a type', { call_id: this.callId || null });
      return this.socket.close(UNSUPPORTED_MESSAGE, 'Unsupported message');
    }
    if (message.type === 'hangup') return this.track(this.callerHungUp());
    if (message.type === 'dtmf') {
      const digit = stringField(message, 'digit');
      if (digit === undefined || !DTMF_KEY.test(digit)) {
        this.runtime.logger.warn('voice: closed a web call on a dtmf message without a key of 0-9 * # A-D', { call_id: this.callId || null });
        return this.socket.close(UNSUPPORTED_MESSAGE, 'Unsupported message');
      }
      if (this.engine) this.engine.digit(digit);
      else if (this.earlyKeys.length < MAX_EARLY_KEYS) this.earlyKeys.push(digit);
      return;
    }
    const name = stringField(message, 'name');
    if (message.type === 'mark' && name !== undefined) {
      this.engine?.played(name);
      // All the audio sent has played; unless more comes at once (the next frames of the same
      // answer are sent 20 ms apart), the assistant is listening.
      if (name === this.lastMark) this.quietSince = setTimeout(() => this.state(false), QUIET_MS);
    }
  }

  /** 16 kHz PCM16 from the page, as the seam's 8 kHz mu-law. */
  private audio(bytes: Buffer): void {
    if (this.over || this.tooFast) return;
    // Paced before anything is done with it, and whether or not the engine has started.
    const verdict = this.pace.take(((bytes.length >> 1) * 1000) / BROWSER_SAMPLE_RATE);
    if (verdict === 'close') {
      this.tooFast = true;
      this.runtime.logger.warn('voice: closed a web call sending audio faster than real time', { call_id: this.callId || null });
      closeForPace(this.socket);
      return;
    }
    if (verdict === 'drop') return;
    if (this.engine) this.feed.push(bytes, ((bytes.length >> 1) * 1000) / BROWSER_SAMPLE_RATE);
    // A copy, as the socket's buffer is not ours to keep.
    else this.early.keep(Buffer.from(bytes), ((bytes.length >> 1) * 1000) / BROWSER_SAMPLE_RATE);
  }

  /** The page's 16 kHz PCM as it is: the seam's audio at the browser's rate (a copy, as the socket's buffer is not ours to keep). */
  private toEngine(engine: VoiceEngine, bytes: Buffer): void {
    const pcm = pcm16(bytes);
    if (pcm.length) engine.audio(pcm.slice());
  }

  /** What the engine sends, as the page's messages. */
  private out(): MediaOut {
    return {
      rate: BROWSER_SAMPLE_RATE,
      media: (pcm) => {
        this.engineSpoke = true;
        if (this.quietSince) clearTimeout(this.quietSince);
        this.quietSince = null;
        this.state(true);
        if (!this.canSend()) return;
        this.socket.send(Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength));
      },
      mark: (name) => {
        this.lastMark = name;
        this.send({ type: 'mark', name });
      },
      clear: () => {
        this.lastMark = null;
        this.send({ type: 'clear' });
        this.state(false);
      },
      transcript: (speaker, text) => this.send({ type: 'transcript', speaker, text, final: false }),
    };
  }

  /** `speaking` when the assistant's audio starts, `listening` once it has all played or was cleared. */
  private state(speaking: boolean): void {
    if (this.speaking === speaking) return;
    this.speaking = speaking;
    this.send({ type: 'state', state: speaking ? 'speaking' : 'listening' });
  }

  /** The call ended on any process (the API, the sweeper): the page is told how, and the socket closes. */
  private onEvent(event: BusEvent): void {
    if (event.type === 'call.finished' && event.data.id === this.callId) this.track(this.tell());
  }

  /** Once: the engine stops, the page is told how the call ended, and the socket closes. */
  private async tell(): Promise<void> {
    if (this.told) return;
    this.told = true;
    this.over = true;
    this.stop();
    await this.endEngine('customer');
    const [row] = await this.runtime.orm.em
      .fork()
      .execute<{ status: string; finished: boolean; hangup_reason: string | null; hangup_detail: string | null; duration: number; total_cost: number }[]>(
        'select status, finished_at is not null as finished, hangup_reason, hangup_detail, duration, total_cost::float8 as total_cost from calls where id = ?',
        [this.callId],
      )
      .catch(() => []);
    this.send({
      type: 'ended',
      status: row?.finished ? row.status : null,
      reason: row?.hangup_reason ?? null,
      detail: row?.hangup_detail ?? null,
      duration: row?.finished ? row.duration : null,
      total_cost: row?.finished ? row.total_cost : null,
    });
    if (!this.closed) this.socket.close(1000, 'call ended');
    this.unlisten?.();
    this.unlisten = null;
  }

  /** The page hung up or left: the engine stops and the call is completed, ended by the caller. */
  private async callerHungUp(): Promise<void> {
    if (!this.callId) {
      // Its token is being checked: the check acts on this when it is done.
      this.hangupWanted = true;
      return;
    }
    if (this.over) {
      if (this.closed) this.stop();
      return;
    }
    this.over = true;
    try {
      await this.endEngine('customer');
      await webCallEndedByCaller(this.runtime.orm.em, this.runtime.lifecycle, this.callId, this.engineSpoke);
    } catch (error) {
      this.runtime.logger.error('voice: a web call did not end cleanly', error, { call_id: this.callId });
    }
    await this.tell();
  }

  private async endEngine(reason: MediaEnd): Promise<void> {
    if (!this.engine || this.engineEnded) return;
    this.engineEnded = true;
    await this.engine.end(reason);
  }

  private stop(): void {
    this.feed.clear();
    if (this.quietSince) clearTimeout(this.quietSince);
    if (this.timeLimit) clearTimeout(this.timeLimit);
    this.quietSince = null;
    this.timeLimit = null;
    if (this.closed) {
      this.unlisten?.();
      this.unlisten = null;
    }
  }

  private canSend(): boolean {
    return this.socket.readyState === this.socket.OPEN;
  }

  private send(message: Record<string, unknown>): void {
    if (this.canSend()) this.socket.send(JSON.stringify(message));
  }
}
