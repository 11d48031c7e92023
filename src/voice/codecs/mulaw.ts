/**
 * G.711 mu-law (ITU-T G.711), the audio of Twilio Media Streams: 8 kHz, one byte a sample.
 * Decoding is a table of the 256 codes. Encoding follows the reference implementation that
 * most software shares (Sun's g711.c, as CPython's audioop has it): the 16-bit sample is
 * taken to 14 bits by an arithmetic shift, its magnitude clipped at 8159 and biased by 33,
 * then coded by segment and the code's bits inverted. The `Into` forms write into a buffer the
 * caller keeps, so a call's 20 ms frames allocate nothing.
 */
/** G.711's rate. */
export const MULAW_RATE = 8000;

const BIAS = 0x84;
const CLIP_14 = 8159;
/** The top of each segment's biased 14-bit magnitudes. */
const SEGMENT_ENDS = [0x3f, 0x7f, 0xff, 0x1ff, 0x3ff, 0x7ff, 0xfff, 0x1fff];

const DECODE = new Int16Array(256);
for (let code = 0; code < 256; code++) {
  const u = ~code & 0xff;
  const t = (((u & 0x0f) << 3) + BIAS) << ((u & 0x70) >> 4);
  DECODE[code] = u & 0x80 ? BIAS - t : t - BIAS;
}

/** The mu-law code of one linear 16-bit sample. */
export function encodeSample(sample: number): number {
  let value = sample >> 2;
  const mask = value < 0 ? 0x7f : 0xff;
  if (value < 0) value = -value;
  value = Math.min(value, CLIP_14) + (BIAS >> 2);
  let segment = 0;
  while (segment < 8 && value > SEGMENT_ENDS[segment]) segment++;
  if (segment === 8) return 0x7f ^ mask;
  return ((segment << 4) | ((value >> (segment + 1)) & 0x0f)) ^ mask;
}

/** The linear 16-bit sample of one mu-law code. */
export function decodeSample(code: number): number {
  return DECODE[code & 0xff];
}

export function decodeInto(codes: Uint8Array, out: Int16Array): Int16Array {
  for (let i = 0; i < codes.length; i++) out[i] = DECODE[codes[i]];
  return out.subarray(0, codes.length);
}

export function encodeInto(samples: Int16Array, out: Uint8Array): Uint8Array {
  for (let i = 0; i < samples.length; i++) out[i] = encodeSample(samples[i]);
  return out.subarray(0, samples.length);
}

export const decode = (codes: Uint8Array): Int16Array => decodeInto(codes, new Int16Array(codes.length));
export const encode = (samples: Int16Array): Uint8Array => encodeInto(samples, new Uint8Array(samples.length));

/** Base64, as a mu-law payload of Twilio's Media Streams or OpenAI Realtime must be. */
export const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The PCM of a base64 mu-law payload. */
export const decodePayload = (payload: string): Int16Array => decode(Buffer.from(payload, 'base64'));

/** Milliseconds of 8 kHz mu-law audio in a base64 payload (one byte a sample). */
export function payloadMs(payload: string): number {
  const padding = payload.endsWith('==') ? 2 : payload.endsWith('=') ? 1 : 0;
  return (((payload.length * 3) / 4 - padding) * 1000) / MULAW_RATE;
}
