import type { CallUsage } from '../../../modules/calls/call.entity';
import { dtmfTones } from '../../codecs/dtmf';
import type { MediaOut } from '../../engine';
import { callPrompt, type EngineSetup } from '../../engine.setup';
import type { LiveCall } from '../../live-call';
import type { ServiceError, TtsSession } from '../../services/service';
import { callFunctions, runFunction, speakDuring, type CallActions } from '../../tools';
import { closingLine, type Ending } from '../../tools/closing';
import { keypadTurn } from '../keypad';
import { Conversation } from './context';
import { fillerAudio } from './fillers';
import type { PipelineDeps, PipelineServices } from './parts';
import { phrases } from './phrases';
import type { Reply, ReplyContext } from './reply';
import type { Speaker } from './speaker';

/** What the replies of a call tell the engine, and ask of it. */
export interface ReplyHooks {
  /** The reply under way, if any. */
  current(): Reply | null;
  /** A function the model called ends the call (a goodbye, a transfer), once its words are heard. */
  ending(): Ending | null;
  end(ending: Ending): void;
  /** A tool run in progress: the call's end waits for its record. */
  track(run: Promise<unknown>): void;
  failed(error: ServiceError): void;
  finished(reply: Reply, cut: boolean): void;
}

/**
 * What every reply of one call shares (reply.ts's ReplyContext): the call's model, voice,
 * prompt, conversation and functions, and what the model's functions do to the call (its end,
 * a transfer, keypad tones after what the reply said so far).
 */
export function callReplies(
  deps: PipelineDeps,
  call: LiveCall,
  setup: EngineSetup,
  services: PipelineServices,
  media: { tts: TtsSession; speaker: Speaker; usage: CallUsage; out: MediaOut },
  hooks: ReplyHooks,
): ReplyContext {
  const { assistant, language } = setup;
  const { tts, out } = media;
  const actions: CallActions = {
    endCall: () => hooks.end('end-call-tool'),
    transfer: () => hooks.end('transferred'),
    // The tones go after what the reply said so far, as a stretch of its audio (the tool runs within the reply).
    pressDigits: async (keys) => {
      const reply = hooks.current();
      if (!reply) return false;
      const played = await reply.playTones(dtmfTones(keys, out.rate));
      if (played) call.turn({ speaker: 'assistant', text: keypadTurn(keys) }, played.startedAt);
      return played !== null;
    },
  };
  const knowledgeBase = setup.knowledgeBase?.mode === 'prompt' ? setup.knowledgeBase : null;
  const fillerText = phrases(language).filler;
  const fillerKey = `${services.tts.vendor}|${services.voiceId}|${language}|${assistant.speech_speed}|${out.rate}|${fillerText}`;
  return {
    llm: { service: services.llm, model: services.model, temperature: assistant.llm_temperature },
    tts,
    speaker: media.speaker,
    conversation: new Conversation(),
    systemPrompt: callPrompt(setup),
    speech: { language, pronunciations: assistant.pronunciations },
    usage: media.usage,
    lookup: knowledgeBase ? async (callerText) => knowledgeNote(await call.searchKnowledge(knowledgeBase, callerText, 'prompt')) : null,
    functions: () => callFunctions(setup),
    runFunction: (name, args) => runFunction(setup, name, args, { deps, call, actions }),
    track: (run) => hooks.track(run),
    ending: () => {
      const ending = hooks.ending();
      if (!ending) return null;
      const line = closingLine(ending, setup);
      return { instructions: 'instructions' in line ? line.instructions : null };
    },
    filler: assistant.filler_audios ? () => fillerAudio(fillerKey, fillerText, tts) : null,
    speakDuring: (name) => speakDuring(setup, name),
    showWords: (text) => out.transcript?.('assistant', text),
    failed: (error) => hooks.failed(error),
    logError: (message, error) => deps.logger.error(message, error, { call_id: call.id }),
    finished: (reply, cut) => hooks.finished(reply, cut),
  };
}

/** `prompt` mode: the chunks found for the caller's turn, as the model is given them (null: none found). */
export function knowledgeNote(hits: readonly { content: string }[]): string | null {
  if (hits.length === 0) return null;
  const excerpts = hits.map((hit, index) => `[${index + 1}] ${hit.content}`).join('\n\n');
  return `Excerpts of the company’s knowledge base that may answer the caller’s last words. Answer from them when they do; do not say you were given them.\n\n${excerpts}`;
}
