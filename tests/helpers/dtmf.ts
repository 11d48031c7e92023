/**
 * Reads the keys out of audio, as a phone menu does: a Goertzel filter per DTMF frequency over
 * 10 ms blocks; a block is a key when one row and one column tone each hold a large share of its
 * energy; a key is counted once two blocks in a row hold it, and once only until a block holds
 * none (a pause between keys separates two presses of the same key).
 */
const ROWS = [697, 770, 852, 941];
const COLUMNS = [1209, 1336, 1477, 1633];
const LAYOUT = ['123A', '456B', '789C', '*0#D'];

/** The power of `frequency` in `block` (Goertzel), normalised by the block's length. */
function goertzel(block: Int16Array, frequency: number, rate: number): number {
  const coefficient = 2 * Math.cos((2 * Math.PI * frequency) / rate);
  let s1 = 0;
  let s2 = 0;
  for (const sample of block) {
    const s0 = sample / 32768 + coefficient * s1 - s2;
    s2 = s1;
    s1 = s0;
  }
  return (s1 * s1 + s2 * s2 - coefficient * s1 * s2) / (block.length * block.length);
}

/** The key a block holds, or null. */
function blockKey(block: Int16Array, rate: number): string | null {
  let energy = 0;
  for (const sample of block) energy += (sample / 32768) ** 2;
  energy /= block.length;
  if (energy < 1e-4) return null;
  const strongest = (frequencies: number[]) => {
    const powers = frequencies.map((frequency) => goertzel(block, frequency, rate));
    const best = powers.indexOf(Math.max(...powers));
    // A pure tone of amplitude a has power a²/4 here, and energy a²/2: each of two tones holds about a quarter of a pair's energy in this measure.
    const others = powers.filter((_, index) => index !== best);
    return powers[best] > energy / 8 && others.every((power) => power < powers[best] / 4) ? best : -1;
  };
  const row = strongest(ROWS);
  const column = strongest(COLUMNS);
  return row >= 0 && column >= 0 ? LAYOUT[row][column] : null;
}

/** The keys heard in `pcm` at `rate`, in order. */
export function decodeDtmf(pcm: Int16Array, rate: number): string {
  const size = rate / 50;
  let keys = '';
  let previous: string | null = null;
  let counted = false;
  for (let at = 0; at + size <= pcm.length; at += size / 2) {
    const key = blockKey(pcm.subarray(at, at + size), rate);
    if (key === null) counted = false;
    else if (key === previous && !counted) {
      keys += key;
      counted = true;
    }
    previous = key;
  }
  return keys;
}
