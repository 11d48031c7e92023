import { voiceTurnLatency } from '../../../metrics';
import type { TurnLatency } from '../../../modules/calls/call.conversation';

/** When each step of a turn happened (ms since the epoch): the caller's end of speech to the first audio sent. */
export interface TurnTiming {
  speechEndedAt: number | null;
  sttFinalAt: number | null;
  llmFirstTokenAt: number | null;
  ttsFirstByteAt: number | null;
  firstAudioAt: number | null;
}

/** A turn's timing from the moment its caller's words are final. */
export function timingFrom(speechEndedAt: number | null): TurnTiming {
  return { speechEndedAt, sttFinalAt: Date.now(), llmFirstTokenAt: null, ttsFirstByteAt: null, firstAudioAt: null };
}

/** A turn's steps as the call's record keeps them: ms after the caller's end of speech. */
export function turnLatency(timing: TurnTiming): TurnLatency | undefined {
  const { speechEndedAt } = timing;
  if (speechEndedAt === null) return undefined;
  const after = (at: number | null) => (at === null ? null : Math.max(0, at - speechEndedAt));
  return {
    stt_final_ms: after(timing.sttFinalAt),
    llm_first_token_ms: after(timing.llmFirstTokenAt),
    tts_first_byte_ms: after(timing.ttsFirstByteAt),
    first_audio_ms: after(timing.firstAudioAt),
  };
}

/** Each step of an answer in /metrics, in seconds after the caller's end of speech. */
export function observe(latency: TurnLatency): void {
  const stages = { stt_final: latency.stt_final_ms, llm_first_token: latency.llm_first_token_ms, tts_first_byte: latency.tts_first_byte_ms, first_audio: latency.first_audio_ms };
  for (const [stage, ms] of Object.entries(stages)) if (ms !== null) voiceTurnLatency.observe({ stage }, ms / 1000);
}
