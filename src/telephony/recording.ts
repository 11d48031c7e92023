import { Readable } from 'node:stream';
import { spokenMs, type Turn } from '../modules/calls/call.conversation';

const SAMPLE_RATE = 8000;
const HEADER_BYTES = 44;
/** Samples made at a time: a second of audio. */
const CHUNK_SAMPLES = SAMPLE_RATE;
/** Each side's pitch, so that an ear (or a test) tells who speaks. */
const PITCH: Record<'assistant' | 'customer', number> = { assistant: 220, customer: 330 };

/** A side's tone from one sample to another (exclusive). */
interface Tone {
  from: number;
  to: number;
  pitch: number;
}

export interface SimulatedRecording {
  /** Bytes in the whole file. */
  length: number;
  /** The file's bytes from `start` to `end` (inclusive), made as they are read. */
  stream(start?: number, end?: number): Readable;
}

/**
 * The simulator's recording of a call: 8 kHz, 8-bit mono PCM WAV of the call's length, from
 * its answer. Each turn with a time plays its side's tone from its `at_ms` for its length, so
 * a player seeking to a turn's time hears that turn; a call recorded before turns had times
 * plays four-second turns of alternating sides. Any range of it is made on its own, never the
 * whole file in memory.
 */
export function simulatedRecording(durationSeconds: number, turns: readonly Turn[] = []): SimulatedRecording {
  const samples = Math.max(0, Math.round(durationSeconds)) * SAMPLE_RATE;
  const header = wavHeader(samples);
  const tones = turns.some((turn) => typeof turn.at_ms === 'number') ? tonesOfTurns(turns, samples) : alternatingTones(samples);
  const length = HEADER_BYTES + samples;

  function* bytes(start: number, end: number): Generator<Buffer> {
    if (start < HEADER_BYTES) yield header.subarray(start, Math.min(HEADER_BYTES, end + 1));
    const last = end - HEADER_BYTES; // the last sample asked for
    for (let from = Math.max(start - HEADER_BYTES, 0); from <= last; from += CHUNK_SAMPLES) {
      yield samplesBetween(from, Math.min(last + 1, from + CHUNK_SAMPLES), tones);
    }
  }
  return { length, stream: (start = 0, end = length - 1) => Readable.from(bytes(start, Math.min(end, length - 1))) };
}

/** What a cache keeps of one recording: what it was made from, and its bytes once made. */
interface Kept {
  source: string;
  length: number;
  bytes: Promise<Buffer>;
}

/**
 * Whole recordings, made once and kept by call (the simulator's file is the same on every
 * download): a player seeks with many range requests, and a page of calls loads each one, so
 * making it again each time cost a second of audio's sines per second of call, per request, on
 * the event loop (200 downloads of one file held /healthz for a third of a second). Downloads
 * of a file still being made wait for that one making. At most `maxBytes` are kept, the least
 * recently used going first; a file over `maxFileBytes` (an eighth of that: 17 minutes at the
 * default) is made as it is read, each time, and never kept.
 */
export class RecordingCache {
  private readonly kept = new Map<string, Kept>();
  private bytes = 0;

  constructor(
    private readonly maxBytes = 64 * 1024 * 1024,
    private readonly maxFileBytes = maxBytes / 8,
  ) {}

  /**
   * The recording `key` names, as `make` makes it; `source` says what it is made from (a call's
   * length and turns), so that a call whose turns changed gets a new file.
   */
  async recording(key: string, source: string, make: () => SimulatedRecording): Promise<SimulatedRecording> {
    let entry = this.kept.get(key);
    if (entry && entry.source !== source) {
      this.forget(key);
      entry = undefined;
    }
    if (entry) {
      // Most recently used last: the Map's order is the eviction order.
      this.kept.delete(key);
      this.kept.set(key, entry);
    } else {
      const made = make();
      if (made.length > this.maxFileBytes) return made;
      const kept: Kept = (entry = { source, length: made.length, bytes: collect(made.stream()) });
      this.kept.set(key, kept);
      this.bytes += kept.length;
      // A failure is not kept: the next download makes it again.
      kept.bytes.catch(() => this.kept.get(key) === kept && this.forget(key));
      for (const oldest of this.kept.keys()) {
        if (this.bytes <= this.maxBytes) break;
        this.forget(oldest);
      }
    }
    const bytes = await entry.bytes;
    return { length: bytes.length, stream: (start = 0, end = bytes.length - 1) => Readable.from([bytes.subarray(start, Math.min(end, bytes.length - 1) + 1)]) };
  }

  private forget(key: string): void {
    const entry = this.kept.get(key);
    if (!entry) return;
    this.kept.delete(key);
    this.bytes -= entry.length;
  }
}

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function wavHeader(samples: number): Buffer {
  const header = Buffer.alloc(HEADER_BYTES);
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
  return header;
}

/** The turns that speak, each from its time for its length (or the length its words take), within the call. */
function tonesOfTurns(turns: readonly Turn[], samples: number): Tone[] {
  const tones: Tone[] = [];
  for (const turn of turns) {
    if (typeof turn.at_ms !== 'number' || turn.speaker === 'system') continue;
    const ms = typeof turn.duration_ms === 'number' ? turn.duration_ms : spokenMs(turn.text);
    const from = Math.round((turn.at_ms * SAMPLE_RATE) / 1000);
    const to = Math.min(samples, Math.round(((turn.at_ms + ms) * SAMPLE_RATE) / 1000));
    if (from < to) tones.push({ from, to, pitch: PITCH[turn.speaker] });
  }
  return tones;
}

/** Four seconds a turn, alternating sides, with a second's pause at the end of each. */
function alternatingTones(samples: number): Tone[] {
  const tones: Tone[] = [];
  for (let turn = 0; turn * 4 * SAMPLE_RATE < samples; turn++) {
    const from = turn * 4 * SAMPLE_RATE;
    tones.push({ from, to: Math.min(samples, from + 3 * SAMPLE_RATE), pitch: turn % 2 === 0 ? PITCH.assistant : PITCH.customer });
  }
  return tones;
}

/** Samples `from` to `to` (exclusive): silence, and the tones over it, each in phase with its sample's index. */
function samplesBetween(from: number, to: number, tones: Tone[]): Buffer {
  const chunk = Buffer.alloc(to - from, 128);
  for (const tone of tones) {
    if (tone.to <= from || tone.from >= to) continue;
    const step = (2 * Math.PI * tone.pitch) / SAMPLE_RATE;
    for (let i = Math.max(from, tone.from); i < Math.min(to, tone.to); i++) chunk[i - from] = 128 + Math.round(20 * Math.sin(step * i));
  }
  return chunk;
}
