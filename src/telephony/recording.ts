import { Readable } from 'node:stream';

const SAMPLE_RATE = 8000;

/**
 * The simulator's recording of a call: 8 kHz, 8-bit mono PCM WAV of the call's length, in
 * which each side's turns are soft tones of their own pitch. Streamed, never held in memory.
 */
export function simulatedRecording(durationSeconds: number): { length: number; stream: Readable } {
  const samples = Math.max(0, Math.round(durationSeconds)) * SAMPLE_RATE;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + samples, 4);
  header.write('WAVE', 8);
  header.write('fmt ', 12);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(SAMPLE_RATE, 24);
  header.writeUInt32LE(SAMPLE_RATE, 28); // byte rate
  header.writeUInt16LE(1, 32); // block align
  header.writeUInt16LE(8, 34); // bits per sample
  header.write('data', 36);
  header.writeUInt32LE(samples, 40);

  let second = 0;
  const seconds = samples / SAMPLE_RATE;
  function* chunks(): Generator<Buffer> {
    yield header;
    for (; second < seconds; second++) {
      const chunk = Buffer.alloc(SAMPLE_RATE, 128);
      const turn = Math.floor(second / 4);
      // Four seconds a turn, alternating sides, with a pause at the end of each.
      if (second % 4 !== 3) {
        const pitch = turn % 2 === 0 ? 220 : 330;
        for (let i = 0; i < SAMPLE_RATE; i++) chunk[i] = 128 + Math.round(20 * Math.sin((2 * Math.PI * pitch * i) / SAMPLE_RATE));
      }
      yield chunk;
    }
  }
  return { length: 44 + samples, stream: Readable.from(chunks()) };
}
