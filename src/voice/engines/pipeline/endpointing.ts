/**
 * When a caller's turn is over (design.md, "The pipeline engine, round 2"): the silence that
 * ends it, and how long its last words may take to come from the STT.
 */

/** How long the final transcript may take after the end of speech before the turn goes without it. */
export const FINAL_WAIT_MS = 1500;

/**
 * The most silence after the caller's words before their turn ends, in both `endpoint_type`s:
 * however long the waits below, and (`ai`) when the STT never says the turn is over (the
 * engine then asks it to `Finalize`).
 */
export const MAX_TURN_SILENCE_MS = 3000;
/** The wait added when the words so far end in a digit, or are mostly digits (a CPF, a CEP, a phone number read in groups). */
export const DIGITS_WAIT_MS = 1200;
/** The wait added when the words so far end without a sentence's punctuation (the caller has not finished the thought). */
export const UNPUNCTUATED_WAIT_MS = 500;

const ENDS_IN_DIGIT = /\d[\s.,;:\-/]*$/;
const ENDS_A_SENTENCE = /[.!?…。！？]["'”’)\]]*$/;
const LETTER = /\p{L}/u;

/**
 * How much longer than the configured silence the caller's turn waits, by what they said so
 * far (Vapi's `transcriptionEndpointingPlan` is the model): a caller reading digits pauses
 * between groups; one whose words end without punctuation has usually not finished.
 */
export function extraWaitMs(said: string): number {
  const text = said.trim();
  if (!text) return 0;
  if (ENDS_IN_DIGIT.test(text) || mostlyDigits(text)) return DIGITS_WAIT_MS;
  return ENDS_A_SENTENCE.test(text) ? 0 : UNPUNCTUATED_WAIT_MS;
}

/** Whether digits are at least half the characters that are not spaces or punctuation. */
function mostlyDigits(text: string): boolean {
  let digits = 0;
  let others = 0;
  for (const char of text) {
    if (char >= '0' && char <= '9') digits++;
    else if (LETTER.test(char)) others++;
  }
  return digits > 0 && digits >= others;
}

/** The silence that ends a turn of these words: the configured silence and the wait they add, capped. */
export function turnSilenceMs(endpointMs: number, said: string): number {
  return Math.min(MAX_TURN_SILENCE_MS, endpointMs + extraWaitMs(said));
}

/**
 * `endpoint_sensitivity` (0 = patient .. 5 = quick) as the silence that ends the caller's turn:
 * 1.2 s at 0, 0.2 s at 5.
 */
export function endpointSilenceMs(sensitivity: number): number {
  return Math.round(1200 - 200 * clamp(sensitivity, 0, 5));
}

export const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));
