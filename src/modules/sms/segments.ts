/**
 * How carriers count an SMS. GSM 03.38 text travels as 7-bit septets: 160 in a single
 * message, 153 in each part of a concatenated one; characters of the extension table take
 * two septets (an escape and the character) and a pair is never split across parts. Any
 * other character makes the whole message UCS-2: 70 UTF-16 code units alone, 67 per part,
 * and a surrogate pair (an emoji, say) is never split either.
 */
const GSM_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\u001bÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM_EXTENSION = '\f^{}\\[~]|€';

const BASIC = new Set(GSM_BASIC);
const EXTENSION = new Set(GSM_EXTENSION);

export type SmsEncoding = 'GSM-7' | 'UCS-2';

export interface SegmentCount {
  encoding: SmsEncoding;
  segments: number;
  /** Septets (GSM-7) or UTF-16 code units (UCS-2). */
  units: number;
}

/** Packs units into parts of `size`, never splitting an item that takes two units. */
function pack(widths: number[], single: number, part: number): number {
  const total = widths.reduce((sum, w) => sum + w, 0);
  if (total <= single) return 1;
  let segments = 1;
  let used = 0;
  for (const width of widths) {
    if (used + width > part) {
      segments++;
      used = 0;
    }
    used += width;
  }
  return segments;
}

export function countSegments(text: string): SegmentCount {
  const chars = [...text]; // code points
  const gsm = chars.every((c) => BASIC.has(c) || EXTENSION.has(c));
  if (gsm) {
    const widths = chars.map((c) => (EXTENSION.has(c) ? 2 : 1));
    return { encoding: 'GSM-7', units: widths.reduce((a, b) => a + b, 0), segments: pack(widths, 160, 153) };
  }
  const widths = chars.map((c) => c.length); // 2 for code points outside the BMP
  return { encoding: 'UCS-2', units: widths.reduce((a, b) => a + b, 0), segments: pack(widths, 70, 67) };
}
