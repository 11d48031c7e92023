/**
 * What the TTS fakes speak for text: a plain tone, MS_PER_CHARACTER of it per character, so a
 * test can tell from the audio's length how much text was spoken.
 */
export const MS_PER_CHARACTER = 60;

/** Samples `from` to `from + count` of a 440 Hz tone at `rate`. */
export function fakeSpeech(from: number, count: number, rate: number): Int16Array {
  return Int16Array.from({ length: count }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 440 * (from + i)) / rate)));
}
