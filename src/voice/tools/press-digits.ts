import { DTMF_KEY } from '../codecs/dtmf';
import type { BuiltInFunction } from './function';

/** Keys one call of the function may press. */
const MAX_KEYS = 32;
const KEYS = new RegExp(`^(?:${DTMF_KEY.source.slice(1, -1)}){1,${MAX_KEYS}}$`);

/**
 * `press_digits`: the model presses keys of the phone's keypad to navigate a menu (an IVR).
 * The engine plays their DTMF tone pairs in-band, after what the assistant said before, so the
 * call's TwiML and stream never change. Offered on phone calls only: a web call has no menu.
 * The model is told what was pressed once the tones have been played; bad keys are told back
 * to it as an error, never thrown.
 */
export const pressDigits: BuiltInFunction = {
  name: 'press_digits',
  offer: ({ phoneLine }) =>
    phoneLine
      ? {
          name: 'press_digits',
          description: 'Press keys on the phone keypad (DTMF), to navigate an automated phone menu: e.g. "1", or "1234#" for an extension.',
          parameters: {
            type: 'object',
            properties: { digits: { type: 'string', description: `The keys to press, in order: 0-9, *, #, A-D; at most ${MAX_KEYS}.` } },
            required: ['digits'],
          },
        }
      : null,
  run: async (args, { actions }) => {
    const digits = digitsOf(args);
    if (digits === null) return JSON.stringify({ error: `digits must be 1 to ${MAX_KEYS} of 0-9, *, #, A-D` });
    const played = await actions.pressDigits(digits);
    return JSON.stringify(played ? { pressed: digits } : { error: 'the keys were not pressed: the caller interrupted, or the call ended', digits });
  },
};

/** The `digits` argument when it is valid, else null. */
function digitsOf(args: string): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    return null;
  }
  const digits = parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>).digits : undefined;
  return typeof digits === 'string' && KEYS.test(digits) ? digits : null;
}
