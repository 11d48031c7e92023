import type { TtsService, TtsOptions } from '../../services/service';
import { synthesise } from './fillers';

/**
 * The apology kept for a dead TTS (design.md, "Vendors that never end a call by themselves"):
 * synthesised when a call starts, on a session of its own beside the call's (the opening is
 * not kept waiting, and a shared asset is not billed to one call's characters), and kept, so
 * that when every TTS vendor of the call has failed the caller still hears why the line ends.
 * Kept per voice, language, speed and rate for every call of the process, as the fillers are;
 * one whose synthesis failed is forgotten, to be tried again by the next call.
 */

/** An apology is a few seconds of speech; the call may fail before it is kept, and then waits this long at most. */
const APOLOGY_SYNTHESIS_MS = 10_000;

const kept = new Map<string, Promise<Int16Array | null>>();

/** The apology's audio for this voice: synthesised on the first call that asks, shared afterwards. */
export function keptApology(tts: TtsService, options: TtsOptions, text: string): Promise<Int16Array | null> {
  const key = `${tts.vendor}|${options.voiceId}|${options.language}|${options.speed}|${options.sampleRate}|${text}`;
  let audio = kept.get(key);
  if (!audio) {
    const session = tts.open(options);
    audio = synthesise(session, text, APOLOGY_SYNTHESIS_MS).finally(() => session.close());
    kept.set(key, audio);
    void audio.then((pcm) => pcm ?? kept.delete(key));
  }
  return audio;
}
