/**
 * DTMF (ITU-T Q.23): each key of a telephone keypad is a pair of tones, one of a row and one
 * of a column, played together. `press_digits` plays them in-band, as audio of the call, so a
 * phone menu hears a key pressed without any change to the call's TwiML.
 */

/** A key of the keypad: 0-9, *, # and the A-D of the fourth column. */
export const DTMF_KEY = /^[0-9*#A-D]$/;

const ROWS = [697, 770, 852, 941] as const;
const COLUMNS = [1209, 1336, 1477, 1633] as const;
const LAYOUT = ['123A', '456B', '789C', '*0#D'] as const;

/** How long each key's tones sound, and the silence after them (the usual 100 ms on, 70 ms off). */
export const TONE_MS = 100;
export const GAP_MS = 70;
/** Each tone's amplitude: the pair together stays under -6 dBFS, loud enough for a menu, never clipped by mu-law. */
const AMPLITUDE = 0.25 * 32767;

/** A key's (row, column) frequencies in Hz. */
export function dtmfPair(key: string): [number, number] {
  const row = LAYOUT.findIndex((keys) => keys.includes(key));
  if (key.length !== 1 || row < 0) throw new RangeError(`not a DTMF key: ${key}`);
  return [ROWS[row], COLUMNS[LAYOUT[row].indexOf(key)]];
}

/** The tone pairs of `keys` (each valid by DTMF_KEY) as 16-bit PCM at `rate`: each TONE_MS of its pair, then GAP_MS of silence. */
export function dtmfTones(keys: string, rate: number): Int16Array {
  const tone = Math.round((rate * TONE_MS) / 1000);
  const step = tone + Math.round((rate * GAP_MS) / 1000);
  const pcm = new Int16Array(step * keys.length);
  [...keys].forEach((key, index) => {
    const [low, high] = dtmfPair(key);
    for (let i = 0; i < tone; i++) {
      const t = i / rate;
      pcm[index * step + i] = Math.round(AMPLITUDE * (Math.sin(2 * Math.PI * low * t) + Math.sin(2 * Math.PI * high * t)));
    }
  });
  return pcm;
}
