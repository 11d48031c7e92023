/**
 * When a caller's turn is over (design.md, "The pipeline engine, round 2"): the silence that
 * ends it, and how long its last words may take to come from the STT.
 */

/** How long the final transcript may take after the end of speech before the turn goes without it. */
export const FINAL_WAIT_MS = 1500;

/**
 * `endpoint_type` ai: the most silence after the caller's words before the turn ends anyway
 * (the engine asks the STT to `Finalize`), when the STT never says the turn is over.
 */
export const AI_TURN_CAP_MS = 3000;

/**
 * `endpoint_sensitivity` (0 = patient .. 5 = quick) as the silence that ends the caller's turn:
 * 1.2 s at 0, 0.2 s at 5.
 */
export function endpointSilenceMs(sensitivity: number): number {
  return Math.round(1200 - 200 * clamp(sensitivity, 0, 5));
}

export const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));
