import type { AnsweredBy } from './call.entity';
import type { Turn } from './call.conversation';

/**
 * The vocabulary providers speak about a call (the simulator, Twilio's callbacks, the media
 * stream), which the state machine in call.lifecycle.ts applies.
 */

/** What a provider reports about a call. */
export type CallEvent =
  | { type: 'ringing' }
  | { type: 'answered'; answeredBy: AnsweredBy }
  | { type: 'not-answered'; status: 'busy' | 'no-answer' | 'failed'; reason?: string }
  | { type: 'ended'; status: 'completed' | 'ended' | 'ended_by_customer' | 'ended_by_assistant'; duration: number; turns: Turn[] }
  /** The sweeper's: the call outlived its longest possible life. */
  | { type: 'expired' };

type EndedStatus = Extract<CallEvent, { type: 'ended' }>['status'];

/**
 * Why vozgate ends a call in flight (a provider's hangup), and how the call then ends: its
 * status and the transcript's closing note once answered, the reason in its events before.
 */
export const HANGUPS = {
  api: { status: 'ended', note: 'Chamada encerrada pela API.', unanswered: 'hung up through the API before it was answered' },
  /** The assistant handed the caller to a person (transfer_call): the call ends when that leg does. */
  transferred: { status: 'ended', note: 'Chamada transferida pelo assistente.', unanswered: 'transferred before it was answered' },
  'end-call-tool': { status: 'ended_by_assistant', note: 'O assistente encerrou a chamada.', unanswered: 'ended by the assistant before it was answered' },
  'time-limit': {
    status: 'ended',
    note: 'Chamada encerrada pela plataforma: tempo máximo excedido.',
    unanswered: 'max_call_duration reached before it was answered',
  },
  silence: { status: 'ended', note: 'Chamada encerrada: o cliente não respondeu.', unanswered: 'silence before it was answered' },
  voicemail: { status: 'ended', note: 'Caixa postal detectada: chamada encerrada (end_call_on_voicemail).', unanswered: 'voicemail before it was answered' },
  /** The engine's detector: the voicemail_message left after the mailbox's beep. */
  'voicemail-message': { status: 'ended', note: 'Caixa postal detectada: mensagem deixada (voicemail_message).', unanswered: 'voicemail before it was answered' },
  /** The engine's detector: a carrier's intercept (the phone off, out of coverage, the number not in service). */
  unavailable: { status: 'ended', note: 'Chamada encerrada: mensagem da operadora (telefone desligado, fora de área ou número inexistente).', unanswered: 'a carrier intercept before it was answered' },
  'media-lost': { status: 'ended', note: 'Chamada encerrada: a conexão de áudio caiu.', unanswered: 'the media stream was lost before it was answered' },
  'engine-failed': { status: 'ended', note: 'Chamada encerrada: o motor de voz falhou.', unanswered: 'the voice engine failed before it was answered' },
  /** The pipeline engine's vendors: speech to text, the language model, text to speech (design.md, "The pipeline engine"). */
  'stt-failed': { status: 'ended', note: 'Chamada encerrada: o reconhecimento de fala falhou.', unanswered: 'speech to text failed before it was answered' },
  'llm-failed': { status: 'ended', note: 'Chamada encerrada: o modelo de linguagem falhou.', unanswered: 'the language model failed before it was answered' },
  'tts-failed': { status: 'ended', note: 'Chamada encerrada: a síntese de voz falhou.', unanswered: 'text to speech failed before it was answered' },
  /** Not a hangup of vozgate's: the caller's, as the media stream tells it (the provider ends the call). */
  customer: { status: 'ended_by_customer', note: 'O cliente encerrou a chamada.', unanswered: 'the caller hung up before it was answered' },
} as const satisfies Record<string, { status: EndedStatus; note: string; unanswered: string }>;
export type HangupReason = keyof typeof HANGUPS;

export function isHangupReason(value: unknown): value is HangupReason {
  return typeof value === 'string' && Object.hasOwn(HANGUPS, value);
}

/** The event of a call that vozgate hung up: `ended` after `duration` seconds once answered, `failed` before. */
export function hangupEvent(reason: HangupReason, answered: boolean, duration: number, turns: Turn[] = []): CallEvent {
  const hangup = HANGUPS[reason];
  return answered
    ? { type: 'ended', status: hangup.status, duration, turns: [...turns, { speaker: 'system', text: hangup.note }] }
    : { type: 'not-answered', status: 'failed', reason: hangup.unanswered };
}
