import { decodePayload, payloadMs } from '../codecs/mulaw';
import type { Resampler } from '../codecs/resample';
import type { MediaOut } from '../engine';

/**
 * What the Realtime engine sent the caller and what they have heard of it. The model's audio
 * goes to the transport with a mark after each chunk, and DTMF tones with a mark after them;
 * the transport's `played` marks say how far the caller has heard, so that an interruption cuts
 * the model's item where the caller stopped hearing it, and a goodbye or tones are known heard.
 */
export class RealtimePlayback {
  /** Marks sent and not played yet, in order; a mark after tones says when they were heard. */
  private marks: { name: string; item: string; endMs: number; tones?: () => void }[] = [];
  /** Tones sent and not heard yet: told false when they are dropped (an interruption, the call's end). */
  private readonly tonesPending = new Set<(played: boolean) => void>();
  private markSeq = 0;
  /** The model's audio item being played, and how much of it was sent and played. */
  private item: { id: string; sentMs: number; playedMs: number } | null = null;

  constructor(
    private readonly out: MediaOut,
    /** A web call's rate from the session's 8 kHz (none for a phone call's). */
    private readonly up: Resampler | null,
  ) {}

  /** Something sent has not been heard yet. */
  get busy(): boolean {
    return this.marks.length > 0;
  }

  /** A chunk (base64 8 kHz mu-law) of the model's audio item; true when it begins a new item. */
  speak(itemId: string, delta: string): boolean {
    const begins = this.item?.id !== itemId;
    const item = begins ? { id: itemId, sentMs: 0, playedMs: 0 } : this.item!;
    this.item = item;
    item.sentMs += payloadMs(delta);
    const pcm = decodePayload(delta);
    this.out.media(this.up ? this.up.process(pcm) : pcm);
    this.mark({ item: itemId, endMs: item.sentMs });
    return begins;
  }

  /**
   * DTMF tones after the audio sent so far; resolves true once the caller has heard them, false
   * when they were dropped (an interruption, the call's end).
   */
  tones(pcm: Int16Array): Promise<boolean> {
    const frame = (this.out.rate * 20) / 1000;
    for (let at = 0; at < pcm.length; at += frame) this.out.media(pcm.slice(at, at + frame));
    return new Promise((resolve) => {
      const settle = (played: boolean) => {
        if (this.tonesPending.delete(settle)) resolve(played);
      };
      this.tonesPending.add(settle);
      this.mark({ item: '', endMs: 0, tones: () => settle(true) });
    });
  }

  /** The transport played up to mark `name`: true when it was the last one, everything sent heard. */
  played(name: string): boolean {
    const index = this.marks.findIndex((mark) => mark.name === name);
    if (index < 0) return false;
    const heard = this.marks.splice(0, index + 1);
    for (const each of heard) each.tones?.();
    const mark = heard[heard.length - 1];
    if (this.item?.id === mark.item) this.item.playedMs = mark.endMs;
    return this.marks.length === 0;
  }

  /**
   * What the caller has not heard is dropped (the transport's buffer is the engine's to clear):
   * the model's item to truncate and where the caller stopped hearing it, when it was playing.
   */
  cut(): { itemId: string; playedMs: number } | null {
    const item = this.item;
    const playing = item !== null && this.marks.some((mark) => mark.item === item.id);
    this.marks = [];
    this.dropTones();
    return playing ? { itemId: item.id, playedMs: Math.floor(item.playedMs) } : null;
  }

  /** Tones not heard yet will not be (the call's end). */
  dropTones(): void {
    for (const settle of [...this.tonesPending]) settle(false);
  }

  private mark(mark: { item: string; endMs: number; tones?: () => void }): void {
    const name = `${++this.markSeq}`;
    this.marks.push({ name, ...mark });
    this.out.mark(name);
  }
}
