import { execFileSync } from 'node:child_process';

/**
 * Speech made by espeak-ng (Debian's), as the telephone carries it: 16-bit PCM at 8 kHz
 * (sox's resampler), for the answering-machine tests and their benchmark (bench/amd.ts).
 */
export function espeak(text: string, voice: string, rate = 8000, wordsPerMinute = 165): Int16Array {
  const wav = execFileSync('espeak-ng', ['-v', voice, '-s', String(wordsPerMinute), '--stdout', text], { maxBuffer: 64 << 20 });
  const raw = execFileSync('sox', ['-t', 'wav', '-', '-r', String(rate), '-c', '1', '-b', '16', '-e', 'signed-integer', '-t', 'raw', '-'], { input: wav, maxBuffer: 64 << 20 });
  return new Int16Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.length - (raw.length % 2)));
}

/** A tone of `hz`, `ms` long, at amplitude `amplitude` (of 32767), with 5 ms ramps (a mailbox's beep). */
export function tone(hz: number, ms: number, rate = 8000, amplitude = 8000): Int16Array {
  const count = Math.round((rate * ms) / 1000);
  const ramp = Math.round(rate * 0.005);
  return Int16Array.from({ length: count }, (_, i) => Math.round(amplitude * Math.min(1, i / ramp, (count - 1 - i) / ramp) * Math.sin((2 * Math.PI * hz * i) / rate)));
}

/** `ms` of the line's silence. */
export const silence = (ms: number, rate = 8000): Int16Array => new Int16Array(Math.round((rate * ms) / 1000));

/** White noise at about `rms` (deterministic). */
export function noise(ms: number, rms: number, rate = 8000, seed = 11): Int16Array {
  let state = seed;
  return Int16Array.from({ length: Math.round((rate * ms) / 1000) }, () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return Math.round(((state / 2 ** 32) * 2 - 1) * rms * Math.sqrt(3));
  });
}

export function concat(...parts: Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
