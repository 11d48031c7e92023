import type { SpeechLanguage } from './number-words';
import { spokenNumbers } from './spoken-numbers';
import { ABBREVIATIONS, WORDS } from './speech-words';

/**
 * What TTS is given (design.md, "The pipeline engine, round 2", "Text for the voice"): the
 * model's streamed text cut into chunks of sentences, each said as a person would say it.
 * The transcript and the model's context keep the text as the model wrote it.
 */

/** `pronunciations`: a whole word and what the voice says instead. */
export interface Pronunciation {
  readonly word: string;
  readonly say_as: string;
}

/**
 * The text of a chunk as the voice should say it in `language` (ISO 639-1): the assistant's
 * pronunciations, then markdown and emoji removed; in Portuguese, English, Spanish and German
 * also abbreviations, money, dates, times, percentages, numbers and identifiers in words.
 */
export function speechText(text: string, language: string | null, pronunciations: readonly Pronunciation[] = []): string {
  let spoken = pronunciations.length ? pronounce(text, pronunciations) : text;
  spoken = withoutMarkdown(spoken).replace(EMOJI, '');
  const supported = speechLanguage(language);
  if (supported) spoken = spokenNumbers(spoken.includes('.') ? spoken.replace(ABBREVIATED[supported], (written, at: number, whole: string) => (at > 0 && WORD_OR_DOT.test(whole[at - 1]) ? written : ABBREVIATION_WORDS[supported].get(written.slice(0, -1))!)) : spoken, supported);
  return spoken.replace(/\s+/g, ' ').replace(/ (?=[.,;:!?…])/g, '').trim();
}

function speechLanguage(language: string | null): SpeechLanguage | null {
  const code = language?.slice(0, 2).toLowerCase();
  return code === 'pt' || code === 'en' || code === 'es' || code === 'de' ? code : null;
}

// ------------------------------------------------------------------ markdown and emoji

/** Each rule runs only on a text that holds its mark (most sentences hold none): the engine runs these on every sentence. */
const MARKDOWN: [mark: string | null, pattern: RegExp, replacement: string][] = [
  // Links and images say their text, not their address.
  ['](', /!?\[([^\]\n]*)\]\([^)\s]*\)/g, '$1'],
  // Headings, quotes, list markers and rules at the start of a line.
  [null, /^[ \t]*(?:#{1,6}|>|[-*+•]|\d{1,2}[.)])[ \t]+/gm, ''],
  [null, /^[ \t]*(?:[-*_][ \t]*){3,}$/gm, ''],
  // Emphasis, strike-through, code: the marks go, the words stay; an underscore inside a word stays.
  [null, /[*~`]+/g, ''],
  ['_', /(?<![\p{L}\p{N}])_+|_+(?![\p{L}\p{N}])/gu, ''],
  // Table cells.
  ['|', /\|/g, ', '],
  // A line that ends without punctuation (a heading, a list item) still ends where the voice pauses.
  ['\n', /(?<=[\p{L}\p{N}])[ \t]*\n\s*/gu, '. '],
];

function withoutMarkdown(text: string): string {
  let plain = text;
  for (const [mark, pattern, replacement] of MARKDOWN) if (mark === null || plain.includes(mark)) plain = plain.replace(pattern, replacement);
  return plain;
}

/** Emoji with their modifiers, joiners, variation selectors, keycaps and flags. */
const EMOJI = /[\p{Extended_Pictographic}\u{1F3FB}-\u{1F3FF}\u{1F1E6}-\u{1F1FF}\u200D\uFE0F\u20E3]/gu;

// ------------------------------------------------------------------ abbreviations

/** An abbreviation is a word of its own: not the end of a longer one ("USr."), nor of a dotted one. */
const WORD_OR_DOT = /[\p{L}.]/u;
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const ABBREVIATION_WORDS = Object.fromEntries(
  Object.entries(WORDS).map(([language, words]) => [language, new Map(Object.entries(words.abbreviations))]),
) as Record<SpeechLanguage, Map<string, string>>;
const ABBREVIATED = Object.fromEntries(
  Object.entries(WORDS).map(([language, words]) => {
    const forms = Object.keys(words.abbreviations).sort((a, b) => b.length - a.length).map(escape);
    return [language, new RegExp(`(?:${forms.join('|')})\\.`, 'g')];
  }),
) as Record<SpeechLanguage, RegExp>;

// ------------------------------------------------------------------ pronunciations

interface Pronouncer {
  pattern: RegExp;
  exact: Map<string, string>;
  /** Words with a small letter match in any case ("vozgate", "Vozgate"); acronyms only as written. */
  anyCase: Map<string, string>;
}

/** Compiled once per list: the engine passes the same list for every sentence of a call. */
const pronouncers = new WeakMap<readonly Pronunciation[], Pronouncer | null>();

/** `pronunciations`: each whole word replaced by what the voice should say. */
export function pronounce(text: string, pronunciations: readonly Pronunciation[]): string {
  let pronouncer = pronouncers.get(pronunciations);
  if (pronouncer === undefined) {
    pronouncer = compilePronouncer(pronunciations);
    pronouncers.set(pronunciations, pronouncer);
  }
  if (!pronouncer) return text;
  const { exact, anyCase } = pronouncer;
  return text.replace(pronouncer.pattern, (word) => exact.get(word) ?? anyCase.get(word.toLowerCase()) ?? word);
}

function compilePronouncer(pronunciations: readonly Pronunciation[]): Pronouncer | null {
  const exact = new Map<string, string>();
  const anyCase = new Map<string, string>();
  for (const { word, say_as } of pronunciations) {
    const written = word.trim();
    if (!written || exact.has(written)) continue;
    exact.set(written, say_as);
    if (written !== written.toUpperCase() && !anyCase.has(written.toLowerCase())) anyCase.set(written.toLowerCase(), say_as);
  }
  if (!exact.size) return null;
  // The longest first, so "São Paulo FC" wins over "São Paulo".
  const words = [...exact.keys()].sort((a, b) => b.length - a.length).map(escape);
  return { pattern: new RegExp(`(?<![\\p{L}\\p{N}_])(?:${words.join('|')})(?![\\p{L}\\p{N}_])`, 'giu'), exact, anyCase };
}

// ------------------------------------------------------------------ sentences

/** A chunk is cut this long at most, at its last comma or space, so speech never waits on a run-on. */
const MAX_SENTENCE = 200;
/** TTS says a fragment badly ("Olá!"): short sentences go with the next one, but the last. */
export const MIN_CHUNK = 20;
/**
 * The end of a sentence: its closing punctuation (with closing quotes or brackets), then a
 * space; the full-width stops of Chinese and Japanese and the Devanagari danda need none.
 */
const END = /[.!?…]+["'”’)\]]*(?=\s)|[。！？।]+["'”’」』)\]]*|\n/g;
/** What follows a full stop: a word (and what follows it, once it has come), or something else. */
const NEXT_WORD = /^\s+(?:(\p{L}+)(\P{L})?|\P{L})/u;
const MONTHS = new Set(Object.values(WORDS).flatMap((words) => words.months.map((month) => month.toLowerCase())));

/**
 * Cuts the model's streamed text into chunks for TTS: a voice sounds right when it knows where
 * a sentence ends, and the first chunk can be spoken while the model writes the rest. A
 * sentence ends at `.`, `!`, `?`, `…` followed by a space, at `。`, `！`, `？`, `।`, or at a
 * line break; not at the full stop of an abbreviation ("Sr.", "z. B."), of a list's number at
 * the start of a line, or of a German date's day ("15. März"). A chunk holds sentences until
 * it has MIN_CHUNK characters.
 */
export class SentenceSplitter {
  private pending = '';
  /** Whether `pending` begins a line. */
  private lineStart = true;

  /** A whole text's chunks, in order. */
  static sentences(text: string): string[] {
    const splitter = new SentenceSplitter();
    const chunks = splitter.push(text);
    const rest = splitter.flush();
    return rest ? [...chunks, rest] : chunks;
  }

  /** The chunks `text` completes, in order. */
  push(text: string): string[] {
    this.pending += text;
    const chunks: string[] = [];
    let from = 0;
    END.lastIndex = 0;
    for (let match = END.exec(this.pending); match; match = END.exec(this.pending)) {
      const to = match.index + match[0].length;
      const ends = this.ends(match, from);
      if (ends === 'wait') break;
      if (!ends) continue;
      const chunk = this.pending.slice(from, to).trim();
      if (chunk.length < MIN_CHUNK) continue;
      chunks.push(chunk);
      from = to;
      this.lineStart = match[0] === '\n';
    }
    this.pending = this.pending.slice(from);
    while (this.pending.length > MAX_SENTENCE) {
      const cut = Math.max(this.pending.lastIndexOf(', ', MAX_SENTENCE), this.pending.lastIndexOf(' ', MAX_SENTENCE));
      const at = cut > 0 ? cut + 1 : MAX_SENTENCE;
      chunks.push(this.pending.slice(0, at).trim());
      this.pending = this.pending.slice(at);
      this.lineStart = false;
    }
    return chunks;
  }

  /** What is left once the text has ended. */
  flush(): string | null {
    const rest = this.pending.trim();
    this.pending = '';
    this.lineStart = true;
    return rest || null;
  }

  /** Whether a full stop ends its sentence; `wait` while the word after it, which decides, has not come. */
  private ends(match: RegExpExecArray, from: number): boolean | 'wait' {
    const mark = match[0];
    if (!mark.startsWith('.') || mark.startsWith('..')) return true;
    // The words before the full stop (a look back of a few characters: an abbreviation is short).
    const start = Math.max(from, match.index - 12);
    const before = this.pending.slice(start, match.index);
    const word = /\S*$/.exec(before)![0];
    const lower = word.toLowerCase();
    if (ABBREVIATIONS.has(lower) || /^\p{Ll}$/u.test(word)) return false;
    const twoWords = /(\S+) (\S+)$/.exec(before);
    if (twoWords && ABBREVIATIONS.has(`${twoWords[1]} ${twoWords[2]}`.toLowerCase())) return false;
    if (!/^\d{1,2}$/.test(word)) return true;
    // "1. Abra o aplicativo": a list's number at the start of a line.
    const wordAt = match.index - word.length;
    const lineAt = this.pending.lastIndexOf('\n', wordAt - 1);
    if (this.pending.slice(lineAt + 1, wordAt).trim() === '' && (lineAt >= 0 || this.lineStart)) return false;
    // "am 15. März": a German date's day.
    const after = NEXT_WORD.exec(this.pending.slice(match.index + mark.length));
    if (!after) return 'wait';
    if (after[1] === undefined) return true;
    // The word after is whole once something that is no letter follows it.
    return after[2] === undefined ? 'wait' : !MONTHS.has(after[1].toLowerCase());
  }
}
