import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { closeWebSockets } from '../../lib/bounded';
import { jsonMessage, objectField, stringField, UNSUPPORTED_MESSAGE, type JsonObject } from '../../lib/json-message';
import { Call } from '../../modules/calls/call.entity';
import { validMediaToken } from '../../telephony/twilio.wire';
import { DTMF_KEY } from '../codecs/dtmf';
import { BASE64, decodePayload, encodeInto, MULAW_RATE, payloadMs } from '../codecs/mulaw';
import type { MediaOut, VoiceEngine } from '../engine';
import { engineSetup } from '../engine.setup';
import { EarlyAudio } from './early-audio';
import { startEngine, type EngineDeps } from '../engines';
import { LiveCall, type LiveCallDeps } from '../live-call';
import { AudioPacer, closeForPace } from '../pacing';

/** The parts of the runtime the media endpoint uses: a live call's and the engines'. */
type MediaDeps = LiveCallDeps & EngineDeps;

/**
 * The Twilio Media Streams transport (design.md, "Voice engines"): the WebSocket the TwiML of
 * a call connects to (MEDIA_PATH, telephony/twilio.wire.ts), and the one place that knows the
 * stream's JSON. The stream names its call in `start` (customParameters call_id and token);
 * a wrong token, a call that is over or a token already used (a replay) closes the socket.
 * Its audio then runs on the assistant's engine until Twilio's `stop` (the call ended) or the
 * socket drops (the call is hung up).
 *
 * Anyone can open this socket, so until a valid `start` it takes only `connected` and one
 * `start`; anything else then (another event, a binary frame, text that is not a JSON object
 * naming its event) closes it. After `start`, a message that is not such an object closes the
 * stream too (Twilio never sends one), and so does a `dtmf` whose digit is not one of 0-9 * # A-D;
 * an event it does not know is ignored. Twilio paces its
 * audio; a stream that sends faster (a stranger holding a valid stream) is paced like a browser
 * (src/voice/pacing.ts): the excess dropped, then the socket closed with 1008.
 */

/** How long a stream has to say which call it is. */
const START_TIMEOUT_MS = 10_000;
/** WebSocket close code of a refused stream (policy violation). */
const REFUSED = 1008;
const SID = /^[A-Za-z0-9]{1,64}$/;
/** Keys kept while the engine starts (a caller does not press more in a second or two). */
export const MAX_EARLY_KEYS = 32;

export interface MediaServer {
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Open media streams. */
  readonly streams: number;
  /** Drops every stream; resolves within about `graceMs`, whatever the sockets do. */
  close(graceMs?: number): Promise<void>;
}

export function serveMedia(runtime: MediaDeps): MediaServer {
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 64 * 1024 });
  const streams = new Set<MediaStream>();
  wss.on('connection', (socket: WebSocket) => {
    const stream = new MediaStream(runtime, socket);
    streams.add(stream);
    socket.once('close', () => streams.delete(stream));
  });
  return {
    upgrade(req, socket, head) {
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
    },
    get streams() {
      return wss.clients.size;
    },
    async close(graceMs = 10_000) {
      // The process stops: its calls lose their media, and Twilio ends them (its callbacks reach the other processes).
      for (const stream of streams) stream.abandon();
      await closeWebSockets(wss, graceMs);
    },
  };
}

/** The `start` message's fields the stream reads, each as the type it must be. */
interface StartMessage {
  streamSid?: string;
  callSid?: string;
  parameters: JsonObject;
}

function startOf(message: JsonObject): StartMessage {
  const start = objectField(message, 'start');
  return {
    streamSid: stringField(start, 'streamSid') ?? stringField(message, 'streamSid'),
    callSid: stringField(start, 'callSid'),
    parameters: objectField(start, 'customParameters'),
  };
}

/** What an engine sends, as Twilio Media Streams messages (streamSid and marks are [A-Za-z0-9], payloads base64: nothing to escape). */
function twilioOut(socket: WebSocket, streamSid: string): MediaOut {
  const send = (message: string) => {
    if (socket.readyState === socket.OPEN) socket.send(message);
  };
  /** The frame's mu-law, in a buffer the stream keeps (an engine sends 20 ms frames). */
  let encoded = new Uint8Array(160);
  return {
    rate: MULAW_RATE,
    media: (pcm) => {
      if (encoded.length < pcm.length) encoded = new Uint8Array(pcm.length);
      const payload = Buffer.from(encodeInto(pcm, encoded)).toString('base64');
      send(`{"event":"media","streamSid":"${streamSid}","media":{"payload":"${payload}"}}`);
    },
    mark: (name) => send(`{"event":"mark","streamSid":"${streamSid}","mark":{"name":"${name}"}}`),
    clear: () => send(`{"event":"clear","streamSid":"${streamSid}"}`),
  };
}

class MediaStream {
  private engine: VoiceEngine | null = null;
  private started = false;
  private stopped = false;
  private abandoned = false;
  private connected = false;
  private refused = false;
  private readonly pace = new AudioPacer('twilio');
  private tooFast = false;
  private readonly startTimer: NodeJS.Timeout;
  /** The caller's audio while the engine starts. */
  private readonly early = new EarlyAudio<string>();
  /** The keys the caller pressed while the engine starts. */
  private readonly earlyKeys: string[] = [];

  constructor(
    private readonly runtime: MediaDeps,
    private readonly socket: WebSocket,
  ) {
    this.startTimer = setTimeout(() => this.refuse('no start'), START_TIMEOUT_MS);
    socket.on('message', (data, binary) => this.onMessage(data, binary));
    socket.on('error', () => {}); // the close that follows ends the stream
    socket.once('close', () => {
      this.pace.count();
      void this.onClose();
    });
  }

  abandon(): void {
    this.abandoned = true;
    void this.engine?.end('shutdown');
    this.socket.terminate();
  }

  private onMessage(data: RawData, binary: boolean): void {
    // Closing: what it sends until the connection ends is not even parsed.
    if (this.refused || this.tooFast) return;
    try {
      this.read(binary ? null : jsonMessage(data, 'event'));
    } catch (error) {
      // A message this code did not foresee ends this stream, never the process.
      this.runtime.logger.error('voice: a media stream message failed', error);
      this.refuse('message failed', UNSUPPORTED_MESSAGE);
    }
  }

  private read(message: (JsonObject & { event: string }) | null): void {
    if (!message) return this.refuse('not a Media Streams message', UNSUPPORTED_MESSAGE);
    if (!this.started && message.event !== 'connected' && message.event !== 'start') return this.refuse('another event before start');
    switch (message.event) {
      case 'connected':
        if (this.connected) return this.refuse('connected twice');
        this.connected = true;
        return;
      case 'media': {
        const payload = stringField(objectField(message, 'media'), 'payload');
        if (payload === undefined || this.tooFast || !BASE64.test(payload)) return;
        const verdict = this.pace.take(payloadMs(payload));
        if (verdict === 'pass') {
          if (this.engine) this.engine.audio(decodePayload(payload));
          else this.early.keep(payload, payloadMs(payload));
        }
        else if (verdict === 'close') {
          this.tooFast = true;
          this.runtime.logger.warn('voice: closed a media stream sending audio faster than real time');
          closeForPace(this.socket);
        }
        return;
      }
      case 'mark': {
        const name = stringField(objectField(message, 'mark'), 'name');
        if (name !== undefined) this.engine?.played(name);
        return;
      }
      case 'dtmf': {
        // A key the caller pressed: `{"dtmf": {"track": "inbound_track", "digit": "1"}}`. Twilio sends one key a message.
        const digit = stringField(objectField(message, 'dtmf'), 'digit');
        if (digit === undefined || !DTMF_KEY.test(digit)) return this.refuse('not a DTMF key', UNSUPPORTED_MESSAGE);
        if (this.engine) this.engine.digit(digit);
        else if (this.earlyKeys.length < MAX_EARLY_KEYS) this.earlyKeys.push(digit);
        return;
      }
      case 'start':
        this.start(startOf(message)).catch((error: unknown) => {
          this.runtime.logger.error('voice: a media stream could not start', error);
          this.refuse('start failed');
        });
        return;
      case 'stop':
        this.stopped = true;
        void this.engine?.end('customer');
        return;
    }
  }

  private refuse(why: string, code = REFUSED): void {
    clearTimeout(this.startTimer);
    // Once: a stranger's burst of garbage is one line, not one per message.
    if (this.refused) return;
    this.refused = true;
    this.runtime.logger.warn('voice: refused a media stream', { why });
    this.socket.close(code, code === REFUSED ? 'Forbidden' : 'Unsupported message');
  }

  /** Authenticates the stream and binds it to its call, once: the token is spent by the first stream. */
  private async start(message: StartMessage): Promise<void> {
    if (this.started) return;
    this.started = true;
    clearTimeout(this.startTimer);
    const { orm, secrets, logger } = this.runtime;
    const callId = Number(stringField(message.parameters, 'call_id'));
    const streamSid = message.streamSid ?? '';
    // The assistant's second stream: it comes back after a warm transfer nobody answered (a token of its own, spent once too).
    const resume = stringField(message.parameters, 'resume') === 'transfer';
    if (!SID.test(streamSid) || !validMediaToken(secrets, callId, stringField(message.parameters, 'token'), resume)) {
      return this.refuse('wrong token');
    }
    const em = orm.em.fork();
    const call = await em.findOne(Call, { id: callId });
    if (!call || (call.provider_call_id && message.callSid && call.provider_call_id !== message.callSid)) return this.refuse('another call');
    const [claimed] = await em.execute(
      resume
        ? 'update calls set media_resumed_at = now() where id = ? and media_resumed_at is null and media_started_at is not null and finished_at is null returning id'
        : 'update calls set media_started_at = now() where id = ? and media_started_at is null and finished_at is null returning id',
      [callId],
    );
    if (!claimed) return this.refuse('a call that is over, or a token already used');

    const live = new LiveCall(this.runtime, callId);
    const setup = await engineSetup(em, call, resume);
    const engine = setup ? await startEngine(this.runtime, live, setup, twilioOut(this.socket, streamSid)) : 'the call has no assistant';
    if (this.socket.readyState !== this.socket.OPEN) {
      // Dropped while it was being set up.
      if (typeof engine !== 'string') await engine.end('media-lost');
      else await live.hangup('media-lost');
      return;
    }
    if (typeof engine === 'string') {
      logger.error(`voice: no engine for this call (${engine})`, undefined, { call_id: callId, engine_type: setup?.assistant.engine_type ?? null });
      live.failed(engine);
      await live.hangup('engine-failed');
      this.socket.close();
      return;
    }
    this.engine = engine;
    this.early.drain((payload) => engine.audio(decodePayload(payload)));
    for (const key of this.earlyKeys.splice(0)) engine.digit(key);
  }

  private async onClose(): Promise<void> {
    clearTimeout(this.startTimer);
    if (this.abandoned) return;
    try {
      await this.engine?.end(this.stopped ? 'customer' : 'media-lost');
    } catch (error) {
      this.runtime.logger.error('voice: a media stream did not end cleanly', error);
    }
  }
}
