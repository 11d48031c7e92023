import WebSocket from 'ws';
import { decode } from '../../src/voice/codecs/mulaw';
import { Resampler } from '../../src/voice/codecs/resample';

/**
 * A browser's side of a web call (design.md, "Web calls"), as the /talk page speaks it: 16 kHz
 * PCM16 binary frames both ways, JSON control messages, marks echoed once "played" (at once,
 * unless the test echoes them). `media()` takes the phone caller's frames (base64 8 kHz
 * mu-law, tests/helpers/caller.ts) and sends them as the browser's audio, so the same Caller
 * and the same real speech drive it.
 */
export class WebCallClient {
  /** JSON messages from vozgate, in order. */
  readonly messages: Record<string, any>[] = [];
  /** Audio from vozgate, 16 kHz PCM16. */
  readonly audio: Int16Array[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  echoMarks = true;
  private readonly up = new Resampler(8000, 16000);
  private waiters: { test: (message: Record<string, any>) => boolean; resolve: (message: Record<string, any>) => void }[] = [];

  private constructor(private readonly socket: WebSocket) {
    this.closed = new Promise((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    socket.on('message', (data, binary) => {
      const bytes = data as Buffer;
      if (binary) {
        const pcm = new Int16Array(bytes.length >> 1);
        for (let i = 0; i < pcm.length; i++) pcm[i] = bytes.readInt16LE(i * 2);
        this.audio.push(pcm);
        return;
      }
      const message = JSON.parse(bytes.toString());
      this.messages.push(message);
      if (message.type === 'mark' && this.echoMarks) this.send({ type: 'mark', name: message.name });
      for (const waiter of this.waiters.filter((w) => w.test(message))) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.resolve(message);
      }
    });
  }

  /** Opens the socket; resolves once it is open (vozgate may still refuse the call: see `closed`). */
  static async connect(url: string): Promise<WebCallClient> {
    const socket = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    return new WebCallClient(socket);
  }

  /** A phone frame (base64 8 kHz mu-law) as the browser's 16 kHz PCM16. */
  media(payload: string): void {
    const pcm = this.up.process(decode(Buffer.from(payload, 'base64')));
    const bytes = Buffer.alloc(pcm.length * 2);
    for (let i = 0; i < pcm.length; i++) bytes.writeInt16LE(pcm[i], i * 2);
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(bytes);
  }

  hangup(): void {
    this.send({ type: 'hangup' });
  }

  close(): void {
    this.socket.close();
  }

  get open(): boolean {
    return this.socket.readyState === WebSocket.OPEN;
  }

  /** The next message from vozgate that passes `test` (or one already received). */
  next(test: (message: Record<string, any>) => boolean, timeoutMs = 10_000): Promise<Record<string, any>> {
    const found = this.messages.find(test);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no such message from vozgate; got ${JSON.stringify(this.messages.map((m) => m.type))}`)), timeoutMs);
      this.waiters.push({ test, resolve: (message) => (clearTimeout(timer), resolve(message)) });
    });
  }

  /** RMS level (dBFS) of the audio received. */
  levelDb(): number {
    let sum = 0;
    let count = 0;
    for (const chunk of this.audio) for (const sample of chunk) (sum += sample * sample), count++;
    return count === 0 ? -Infinity : 10 * Math.log10(sum / count / 32768 ** 2 + 1e-20);
  }

  send(message: Record<string, unknown>): void {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
  }
}

