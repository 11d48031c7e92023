/**
 * Acknowledgements a caller says over the assistant ("aham", "sim", "okay"): they never
 * interrupt it and never become a turn of the model, but stay in the transcript (design.md,
 * "Turn-taking that survives real callers"). The defaults per language (ISO 639-1); an
 * assistant's `backchannel_words` replace them.
 */
const DEFAULTS: Record<string, readonly string[]> = {
  pt: ['aham', 'uhum', 'hum', 'sim', 'tá', 'ta', 'certo', 'ok', 'okay', 'entendi', 'claro', 'isso'],
  en: ['yeah', 'yes', 'yep', 'okay', 'ok', 'uh-huh', 'uhhuh', 'right', 'mhm', 'mm-hmm', 'sure', 'i see'],
  es: ['sí', 'si', 'vale', 'ajá', 'aja', 'claro', 'ok', 'okay', 'mhm', 'entiendo', 'ya'],
  de: ['ja', 'genau', 'okay', 'ok', 'mhm', 'aha', 'richtig', 'stimmt', 'klar'],
};

/** The words of a text as they are compared: lower case, without the punctuation around them. */
export function wordsOf(text: string): string[] {
  return text
    .toLowerCase()
    .split(/\s+/)
    .map((word) => word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''))
    .filter(Boolean);
}

export class Backchannels {
  private readonly words: Set<string>;

  /** `custom`: the assistant's `backchannel_words` (null: the language's defaults). */
  constructor(language: string | null, custom: readonly string[] | null = null) {
    this.words = new Set((custom ?? DEFAULTS[language ?? ''] ?? []).flatMap((word) => wordsOf(word).join(' ')).filter(Boolean));
  }

  /** Whether every word of `text` (one at least) is an acknowledgement. */
  only(text: string): boolean {
    const words = this.split(text);
    return words.length > 0 && words.every((word) => this.words.has(word));
  }

  /** The words of `text` that are not acknowledgements (those that may interrupt). */
  others(text: string): number {
    return this.split(text).filter((word) => !this.words.has(word)).length;
  }

  /** The text's words, with the acknowledgements of two words ("i see") kept as one. */
  private split(text: string): string[] {
    const words = wordsOf(text);
    const joined: string[] = [];
    for (let i = 0; i < words.length; i++) {
      const pair = i + 1 < words.length ? `${words[i]} ${words[i + 1]}` : null;
      if (pair && this.words.has(pair)) {
        joined.push(pair);
        i++;
      } else joined.push(words[i]);
    }
    return joined;
  }
}
