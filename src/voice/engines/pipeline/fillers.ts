import type { TtsSession } from '../../services/service';

/** How long a filler may take to synthesise before the reply goes on without it. */
const FILLER_SYNTHESIS_MS = 3000;

/** Fillers synthesised once per voice, language and text, shared by every call of the process. */
const fillers = new Map<string, Promise<Int16Array | null>>();

/**
 * `filler_audios`: the whole audio of a filler, synthesised by this call's TTS session the
 * first time its key (voice, language, speed, text) is asked for, and shared from then on;
 * a synthesis that failed is forgotten, to be tried again.
 */
export function fillerAudio(key: string, text: string, tts: TtsSession): Promise<Int16Array | null> {
  let audio = fillers.get(key);
  if (!audio) {
    audio = synthesise(tts, text);
    fillers.set(key, audio);
    void audio.then((pcm) => pcm ?? fillers.delete(key));
  }
  return audio;
}

/**
 * The whole audio of a text; null when TTS fails, says nothing, or takes longer than `boundMs`
 * (the call may end meanwhile, and its session with it).
 */
export function synthesise(tts: TtsSession, text: string, boundMs = FILLER_SYNTHESIS_MS): Promise<Int16Array | null> {
  return new Promise((resolve) => {
    const chunks: Int16Array[] = [];
    const timer = setTimeout(() => {
      utterance.cancel();
      resolve(null);
    }, boundMs);
    timer.unref();
    const utterance = tts.utterance({
      audio: (pcm) => chunks.push(pcm),
      done: () => {
        clearTimeout(timer);
        const all = new Int16Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
        let at = 0;
        for (const chunk of chunks) all.set(chunk, (at += chunk.length) - chunk.length);
        resolve(all.length > 0 ? all : null);
      },
      failed: () => {
        clearTimeout(timer);
        resolve(null);
      },
    });
    utterance.push(text);
    utterance.end();
  });
}
