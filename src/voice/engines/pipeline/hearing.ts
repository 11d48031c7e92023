import type { Logger } from '../../../log';
import { Framer } from '../../codecs/mix';
import { encode } from '../../codecs/mulaw';
import { Resampler } from '../../codecs/resample';
import type { MediaRate } from '../../engine';
import { PHONE_STT_AUDIO, type SttAudio, type SttStream } from '../../services/service';
import { VAD_FRAME_SAMPLES, VAD_SAMPLE_RATE } from '../../vad/silero';

/** `noise_cancellation`: cleans the caller's PCM (at the call's rate) before VAD and STT (on the voice worker thread, hence a promise; in order). */
export interface Denoiser {
  process(pcm: Int16Array): Promise<Int16Array>;
  destroy(): void;
}

/** The VAD: the probability that a frame (32 ms of 16 kHz PCM) is speech; null for a frame it skipped (late). */
export interface Vad {
  speech(frame: Int16Array, arrivedAt?: number): Promise<number | null>;
  close(): void;
}

/** Where what is heard goes. */
export interface Listener {
  /** One VAD frame's speech probability, in order. */
  vad(probability: number): void;
  /** The VAD failed (said once): turns then end at the STT's end of turn. */
  vadLost(): void;
  /** The VAD skipped a frame (it came late, or too many waited): it cannot hear the silence in time. */
  vadLate(): void;
}

/** What the STT is sent of a call at this rate: the telephone's mu-law as it came, a browser's 16 kHz PCM as it is. */
export function sttAudio(rate: MediaRate): SttAudio {
  return rate === PHONE_STT_AUDIO.sampleRate ? PHONE_STT_AUDIO : { encoding: 'linear16', sampleRate: 16000 };
}

/**
 * The caller's audio on its way to being understood: (noise suppression ->) the STT's socket,
 * and the VAD, frame by frame and in order, on its worker.
 */
export class Hearing {
  /** To the VAD's 16 kHz (none when the call is at that rate already). */
  private readonly toVad: Resampler | null;
  /** The STT takes mu-law (the telephone's), else the PCM's own bytes. */
  private readonly mulaw: boolean;
  private readonly vadFrames = new Framer(VAD_FRAME_SAMPLES);
  /** VAD runs in order, frame after frame. */
  private runs: Promise<void> = Promise.resolve();
  private vadFailed = false;
  private closed = false;

  constructor(
    private readonly stt: SttStream,
    private readonly vad: Vad,
    private readonly denoiser: Denoiser | null,
    private readonly listener: Listener,
    private readonly log: { logger: Logger; callId: number },
    rate: MediaRate,
  ) {
    this.toVad = rate === VAD_SAMPLE_RATE ? null : new Resampler(rate, VAD_SAMPLE_RATE);
    this.mulaw = sttAudio(rate).encoding === 'mulaw';
  }

  /** A chunk of the caller's audio, PCM at the call's rate. */
  audio(pcm: Int16Array): void {
    if (this.closed) return;
    if (!this.denoiser) return this.pass(pcm);
    const arrivedAt = performance.now();
    void this.denoiser.process(pcm).then((clean) => {
      if (!this.closed) this.pass(clean, arrivedAt);
    });
  }

  /** `arrivedAt`: when the audio came in (before the denoiser's wait), for the VAD's late-frame bound. */
  private pass(pcm: Int16Array, arrivedAt?: number): void {
    // The STT's encoding (sttAudio): mu-law for the telephone, the PCM's own bytes (little-endian on every platform Node runs this on) for a browser.
    this.stt.send(this.mulaw ? encode(pcm) : new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength));
    this.toVadFrames(this.toVad ? this.toVad.process(pcm) : pcm, arrivedAt);
  }

  /** Stops hearing; resolves once the frames given to the VAD have been heard. */
  close(): Promise<void> {
    this.closed = true;
    this.vad.close();
    this.denoiser?.destroy();
    return this.runs;
  }

  private toVadFrames(vadInput: Int16Array, arrivedAt?: number): void {
    if (this.vadFailed) return;
    for (const frame of this.vadFrames.push(vadInput)) {
      // Given to the VAD as it arrives, so its queue (bounded: late frames are skipped) sees the real wait; heard in order.
      const judged = this.vad.speech(frame, arrivedAt);
      judged.catch(() => {}); // handled in hear(), which may come to it after it failed
      this.runs = this.runs
        .then(() => this.hear(judged))
        .catch((error: unknown) => this.log.logger.error('voice: a frame of the caller could not be heard', error, { call_id: this.log.callId }));
    }
  }

  private async hear(judged: Promise<number | null>): Promise<void> {
    if (this.closed) return;
    let probability: number | null;
    try {
      probability = await judged;
    } catch (error) {
      // A bug, not a vendor: said once; the turns then end at the STT's end of turn.
      if (!this.vadFailed) {
        this.log.logger.error('voice: the VAD failed', error, { call_id: this.log.callId });
        this.listener.vadLost();
      }
      this.vadFailed = true;
      return;
    }
    if (this.closed) return;
    // A frame the VAD skipped (it came late) counts as neither speech nor silence.
    if (probability === null) this.listener.vadLate();
    else this.listener.vad(probability);
  }
}
