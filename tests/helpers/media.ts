import { WebSocket } from 'ws';

/** G.711 mu-law of one 16-bit linear sample, as telephone networks encode it. */
export function muLaw(sample: number): number {
  const BIAS = 0x84;
  const CLIP = 32635;
  const sign = sample < 0 ? 0x80 : 0;
  let magnitude = Math.min(Math.abs(sample), CLIP) + BIAS;
  let exponent = 7;
  for (let mask = 0x4000; (magnitude & mask) === 0 && exponent > 0; exponent--, mask >>= 1);
  const mantissa = (magnitude >> (exponent + 3)) & 0x0f;
  magnitude = ~(sign | (exponent << 4) | mantissa) & 0xff;
  return magnitude;
}

/** `count` frames of 20 ms (160 samples at 8 kHz) of a tone, base64 mu-law as Twilio sends them. */
export function toneFrames(count: number, hz = 440, start = 0): string[] {
  const frames: string[] = [];
  for (let f = 0; f < count; f++) {
    const bytes = Buffer.alloc(160);
    for (let i = 0; i < 160; i++) bytes[i] = muLaw(Math.round(8000 * Math.sin((2 * Math.PI * hz * (start + f * 160 + i)) / 8000)));
    frames.push(bytes.toString('base64'));
  }
  return frames;
}

/**
 * A client that speaks Twilio Media Streams to vozgate's media endpoint, as Twilio does:
 * `connected`, `start` with the TwiML's parameters, `media` frames, `mark` echoes once the
 * audio before them has been "played", `stop`.
 */
export class TwilioMediaClient {
  readonly messages: Record<string, any>[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  /** Echo each mark at once (all audio before it heard); off, the test echoes them. */
  echoMarks = true;
  private sequence = 0;
  private waiters: { test: (message: Record<string, any>) => boolean; resolve: (message: Record<string, any>) => void }[] = [];

  private constructor(
    private readonly socket: WebSocket,
    readonly streamSid: string,
  ) {
    this.closed = new Promise((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString());
      this.messages.push(message);
      if (message.event === 'mark' && this.echoMarks) this.mark(message.mark.name);
      for (const waiter of this.waiters.filter((w) => w.test(message))) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.resolve(message);
      }
    });
  }

  static async connect(url: string): Promise<TwilioMediaClient> {
    const socket = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    const client = new TwilioMediaClient(socket, `MZ${Math.random().toString(16).slice(2).padEnd(32, '0')}`);
    client.send({ event: 'connected', protocol: 'Call', version: '1.0.0' });
    return client;
  }

  start(parameters: Record<string, string>, callSid: string): void {
    this.send({
      event: 'start',
      sequenceNumber: String(++this.sequence),
      start: {
        accountSid: 'AC00000000000000000000000000000000',
        streamSid: this.streamSid,
        callSid,
        tracks: ['inbound'],
        customParameters: parameters,
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
      },
      streamSid: this.streamSid,
    });
  }

  media(payload: string): void {
    this.send({ event: 'media', sequenceNumber: String(++this.sequence), media: { track: 'inbound', chunk: String(this.sequence), timestamp: String(this.sequence * 20), payload }, streamSid: this.streamSid });
  }

  mark(name: string): void {
    this.send({ event: 'mark', sequenceNumber: String(++this.sequence), streamSid: this.streamSid, mark: { name } });
  }

  stop(callSid: string): void {
    this.send({ event: 'stop', sequenceNumber: String(++this.sequence), streamSid: this.streamSid, stop: { accountSid: 'AC00000000000000000000000000000000', callSid } });
  }

  /** The next message from vozgate that passes `test` (or one already received). */
  next(test: (message: Record<string, any>) => boolean, timeoutMs = 10_000): Promise<Record<string, any>> {
    const found = this.messages.find(test);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no such message from vozgate')), timeoutMs);
      this.waiters.push({ test, resolve: (message) => (clearTimeout(timer), resolve(message)) });
    });
  }

  /** The socket is still open (vozgate has not closed it). */
  get open(): boolean {
    return this.socket.readyState === WebSocket.OPEN;
  }

  close(): void {
    this.socket.close();
  }

  send(message: Record<string, unknown>): void {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
  }
}
