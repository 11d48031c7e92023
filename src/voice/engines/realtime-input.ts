import { encode } from '../codecs/mulaw';
import type { Resampler } from '../codecs/resample';

/** Caller audio kept while the session is being set up: 2 s of 20 ms frames. */
const PENDING_FRAMES = 100;

/**
 * The caller's audio to the Realtime session, as `input_audio_buffer.append` events of 8 kHz
 * mu-law in base64: kept while the session is being set up (its last 2 s), then sent as it comes.
 */
export class RealtimeInput {
  private pending: string[] | null = [];

  constructor(
    private readonly send: (event: string) => void,
    /** A web call's rate to the session's 8 kHz (none for a phone call's). */
    private readonly down: Resampler | null,
  ) {}

  push(pcm: Int16Array): void {
    const narrow = this.down ? this.down.process(pcm) : pcm;
    if (narrow.length === 0) return;
    const event = `{"type":"input_audio_buffer.append","audio":"${Buffer.from(encode(narrow)).toString('base64')}"}`;
    if (this.pending === null) return this.send(event);
    if (this.pending.push(event) > PENDING_FRAMES) this.pending.shift();
  }

  /** The session is set up: what was kept goes first. */
  open(): void {
    for (const event of this.pending ?? []) this.send(event);
    this.pending = null;
  }
}
