import { dtmfTones, GAP_MS, TONE_MS } from '../../src/voice/codecs/dtmf';
import { decode, encode } from '../../src/voice/codecs/mulaw';
import { decodeDtmf } from '../helpers/dtmf';

/** The DTMF tones press_digits plays, read back by the test's Goertzel decoder (tests/helpers/dtmf.ts). */
it('plays each key as its row and column pair, 100 ms on and 70 ms off, read back through mu-law at 8 kHz and as PCM at 16 kHz', () => {
  const keys = '0123456789*#ABCD11';
  const phone = dtmfTones(keys, 8000);
  expect(phone.length).toBe((8000 * (TONE_MS + GAP_MS) * keys.length) / 1000);
  expect(decodeDtmf(decode(encode(phone)), 8000)).toBe(keys);
  expect(decodeDtmf(dtmfTones(keys, 16000), 16000)).toBe(keys);
  // Silence and a steady voice-like hum are no key.
  expect(decodeDtmf(new Int16Array(8000).fill(1000), 8000)).toBe('');
});
