import type { TtsUtterance } from '../../services/service';
import type { AssistantMessage } from './context';
import { Spoken } from './speaker';

/** One stretch of the assistant's speech. */
export class Segment {
  /** What the speaker knows of its audio (a new one when it is said again after a pause). */
  spoken = new Spoken();
  /** Audio that came before the segments ahead of it finished, or while the reply is paused. */
  pending: Int16Array[] = [];
  ttsDone = false;
  /** Whether TTS was given anything to say (a text of emoji only has nothing). */
  said = false;
  /** Its sentences as the model wrote them, in order (`text` is them joined by spaces). */
  readonly sentences: string[] = [];
  /** No more text comes for it. */
  ended = false;
  /** Where in `text` the audio of `spoken` begins (a sentence's start, after a pause). */
  spokenFrom = 0;
  /** What the caller had heard of it when a pause cut it (they heard it, even if it is said again). */
  heardBefore = '';
  /** A stretch of DTMF tones (press_digits), not TTS: its audio, played again whole after a pause, and who waits for it to be heard. */
  tones: { pcm: Int16Array; heard: (played: { startedAt: number | null } | null) => void } | null = null;
  constructor(
    /**
     * The model's text, as written (empty for a filler: it is not part of the conversation);
     * TTS is given it as a person would say it.
     */
    public text: string,
    public utterance: TtsUtterance | null,
    /** The model's message this segment says, cut with it. */
    readonly message: AssistantMessage | null,
  ) {}
}

/**
 * The words of a segment the caller heard: what they heard before a pause (up to the sentence
 * said again, or further when they heard more of it before the pause), then the rest in
 * proportion to the audio played, cut at a word.
 */
export function heardText(segment: Segment): string {
  const heard = heardSince(segment);
  return heard.length >= segment.heardBefore.length ? heard : segment.heardBefore;
}

function heardSince(segment: Segment): string {
  const before = segment.text.slice(0, segment.spokenFrom).trim();
  const text = segment.text.slice(segment.spokenFrom);
  const { heardMs, queuedMs } = segment.spoken;
  const join = (rest: string) => [before, rest].filter(Boolean).join(' ');
  if (heardMs <= 0 || !text) return before;
  if (heardMs >= queuedMs && segment.ttsDone) return join(text);
  const share = queuedMs > 0 ? Math.min(1, heardMs / queuedMs) : 0;
  const at = Math.round(text.length * share);
  const cut = text.lastIndexOf(' ', at);
  if (cut > 0) return join(text.slice(0, cut).trim());
  // Chinese and Japanese are written without spaces: cut at the character.
  return join(CJK.test(text) ? text.slice(0, at).trim() : '');
}

/**
 * Where a segment cut by a pause is said again from: the start of the sentence being heard
 * when it was cut (`cut`; by the share of its audio heard, as heardText cuts), or of the
 * segment: that sentence's offset in `text`, and its index in `sentences`.
 */
export function resumePoint(segment: Segment, cut: boolean): { from: number; index: number } {
  const { heardMs, queuedMs } = segment.spoken;
  const at = segment.spokenFrom + (cut && queuedMs > 0 ? Math.round((segment.text.length - segment.spokenFrom) * Math.min(1, heardMs / queuedMs)) : 0);
  for (let start = 0, index = 0; index < segment.sentences.length; index++) {
    const end = start + segment.sentences[index].length;
    if (at < end || index === segment.sentences.length - 1) return { from: start, index };
    start = end + 1;
  }
  return { from: 0, index: segment.sentences.length };
}

const CJK = /[\u3040-\u30ff\u3400-\u9fff]/;
