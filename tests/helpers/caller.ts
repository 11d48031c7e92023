import { readFileSync } from 'node:fs';
import path from 'node:path';
import { decode, encode } from '../../src/voice/codecs/mulaw';
import { Resampler } from '../../src/voice/codecs/resample';

/**
 * The caller's side of a phone call, as Twilio streams it: a 20 ms frame of 8 kHz mu-law
 * every 20 ms for the whole call, speech when the caller speaks and the line's silence
 * otherwise. The speech is real: tests/fixtures/speech-pt-br-16k.wav, a pt-BR sentence
 * spoken by espeak-ng.
 */

const FRAME_BYTES = 160;
/** Mu-law's zero. */
const SILENCE = Buffer.alloc(FRAME_BYTES, 0xff).toString('base64');

function frames(mulaw: Uint8Array): string[] {
  const out: string[] = [];
  for (let at = 0; at < mulaw.length; at += FRAME_BYTES) {
    const frame = Buffer.alloc(FRAME_BYTES, 0xff);
    frame.set(mulaw.subarray(at, at + FRAME_BYTES));
    out.push(frame.toString('base64'));
  }
  return out;
}

let sentence: string[] | null = null;

/** The sentence, as Twilio carries it (about 2.5 s). */
export function speech(): string[] {
  if (!sentence) {
    const wav = readFileSync(path.join(__dirname, '..', 'fixtures', 'speech-pt-br-16k.wav'));
    const pcm = new Int16Array(wav.buffer.slice(wav.byteOffset + 44, wav.byteOffset + wav.length - ((wav.length - 44) % 2)));
    sentence = frames(encode(new Resampler(16000, 8000).process(pcm)));
  }
  return sentence;
}

/** The first `ms` of the sentence: a short burst of voice (a cough, an "uh"). */
export const burst = (ms: number): string[] => speech().slice(8, 8 + Math.round(ms / 20));

/**
 * A fan in the caller's room, `ms` long at about `rms`: a low rumble (white noise through a
 * one-pole low-pass) and its 120 Hz hum. Deterministic.
 */
export function fanNoise(ms: number, rms: number, seed = 7): string[] {
  let state = seed;
  let rumble = 0;
  const samples = new Int16Array((ms * 8000) / 1000);
  for (let i = 0; i < samples.length; i++) {
    let white = 0;
    for (let k = 0; k < 3; k++) {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      white += (state / 2 ** 32) * 2 - 1;
    }
    rumble = 0.9 * rumble + 0.1 * white;
    samples[i] = Math.round((rumble + 0.05 * Math.sin((2 * Math.PI * 120 * i) / 8000)) * rms * 4);
  }
  return frames(encode(samples));
}

/** RMS level (dBFS) of base64 mu-law audio. */
export function levelDb(payloads: string[]): number {
  let sum = 0;
  let count = 0;
  for (const payload of payloads) {
    const samples = decode(Buffer.from(payload, 'base64'));
    for (const sample of samples) sum += sample * sample;
    count += samples.length;
  }
  return count === 0 ? -Infinity : 10 * Math.log10(sum / count / 32768 ** 2 + 1e-20);
}

export class Caller {
  private queue: string[] = [];
  private waiting: (() => void)[] = [];
  private timer: NodeJS.Timeout | null = null;
  private next = Date.now();
  /** Frames sent so far (the call's audio clock, 20 ms each). */
  sent = 0;

  /** `media` carries a frame to vozgate: a Twilio media stream (helpers/media.ts) or a web call's socket (helpers/web-call.ts). */
  constructor(private readonly media: { media(payload: string): void }) {
    this.tick();
  }

  /** Speaks these frames next; resolves once the last has gone. */
  say(payloads: string[]): Promise<void> {
    this.queue.push(...payloads);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  hangUp(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private tick(): void {
    const now = Date.now();
    while (this.next <= now) {
      const payload = this.queue.shift();
      this.media.media(payload ?? SILENCE);
      this.sent++;
      if (payload !== undefined && this.queue.length === 0) for (const resolve of this.waiting.splice(0)) resolve();
      this.next += 20;
    }
    this.timer = setTimeout(() => this.tick(), Math.max(1, this.next - Date.now()));
  }
}
