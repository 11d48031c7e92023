import type * as Locale from 'n2words/en-US' with { 'resolution-mode': 'import' };

/**
 * Numbers in words for the voice (design.md, "Text for the voice"), through n2words for
 * Portuguese, English, Spanish and German. n2words has no Brazilian Portuguese, and its
 * Portuguese and Spanish scales are wrong above a thousand ("mil duzentos", "veintiuno mil",
 * "dois mil milhões quinhentos milhões"): for those two it gives the words under a thousand
 * and the scales are composed here.
 */

export type SpeechLanguage = 'pt' | 'en' | 'es' | 'de';
/**
 * How a number agrees with the word after it: `alone` ("um", "uno", "eins"), before a masculine
 * (or any) noun ("un día", "ein Tag"), before a feminine one ("duas horas", "una hora", "eine Stunde").
 */
export type Agreement = 'alone' | 'masculine' | 'feminine';

type Words = Pick<typeof Locale, 'toCardinal' | 'toOrdinal'>;

// n2words is ESM only: Node 20.19+ requires it synchronously (require(esm)); jest compiles it
// (jest.config.js). A CommonJS build cannot `import` it, hence require with the types imported.
const LIBRARY: Record<SpeechLanguage, Words> = {
  pt: require('n2words/pt-PT') as Words,
  en: require('n2words/en-US') as Words,
  es: require('n2words/es-ES') as Words,
  de: require('n2words/de-DE') as Words,
};

/** Brazil's words where Portugal's differ (the words under a thousand). */
const PT_BR: Record<string, string> = { dezasseis: 'dezesseis', dezassete: 'dezessete', dezanove: 'dezenove', catorze: 'quatorze' };
const PT_BR_WORD = /\b(?:dezasseis|dezassete|dezanove|catorze)\b/g;
/** Short scale in Brazil: 10^9 is "bilhão" (Portugal's "mil milhões"). */
const PT_SCALES = [
  ['', ''],
  ['mil', 'mil'],
  ['milhão', 'milhões'],
  ['bilhão', 'bilhões'],
  ['trilhão', 'trilhões'],
  ['quatrilhão', 'quatrilhões'],
];
/** Long scale in Spanish: millón (10^6), billón (10^12), trillón (10^18); 10^9 is "mil millones". */
const ES_SCALES = [
  ['millón', 'millones'],
  ['billón', 'billones'],
  ['trillón', 'trillones'],
];

const DECIMAL_WORD: Record<SpeechLanguage, string> = { pt: 'vírgula', en: 'point', es: 'coma', de: 'Komma' };

/** Digits as they are written: "987" -> "nove oito sete" (identifiers, decimals read digit by digit). */
export function digitWords(digits: string, language: SpeechLanguage): string {
  const names = DIGITS[language];
  let words = '';
  for (const digit of digits) words += (words ? ' ' : '') + names[digit.charCodeAt(0) - 48];
  return words;
}
const DIGITS = Object.fromEntries(
  (Object.keys(LIBRARY) as SpeechLanguage[]).map((language) => [
    language,
    Array.from({ length: 10 }, (_, digit) => (language === 'de' && digit === 1 ? 'eins' : LIBRARY[language].toCardinal(digit))),
  ]),
) as Record<SpeechLanguage, string[]>;

/** Longer numbers are no quantity a person says in words (and n2words has no names past its scales): digit by digit. */
const MAX_DIGITS = 15;

/** A whole number (digits, no sign) in words, agreeing with what follows it. */
export function cardinal(digits: string, language: SpeechLanguage, agreement: Agreement = 'alone'): string {
  if (digits.length > MAX_DIGITS) return digitWords(digits, language);
  const value = BigInt(digits);
  if (language === 'pt') return portuguese(value, agreement);
  if (language === 'es') return spanish(value, agreement);
  const words = LIBRARY[language].toCardinal(value);
  if (language !== 'de' || agreement === 'alone') return words;
  // "ein Euro", "eine Stunde", "einundzwanzig Euro": only a final "eins" agrees.
  return words.replace(/eins$/, agreement === 'feminine' ? 'eine' : 'ein');
}

/** A number with a fraction: "2", "5" -> "dois vírgula cinco"; "3", "14" -> "three point one four". */
export function decimal(whole: string, fraction: string, language: SpeechLanguage): string {
  const wholeWords = cardinal(whole, language);
  // Portuguese and Spanish say a short fraction as a number ("doze vírgula cinquenta"); English and German digit by digit.
  const asNumber = (language === 'pt' || language === 'es') && fraction.length <= 2;
  const zeros = /^0*/.exec(fraction)![0];
  const rest = fraction.slice(zeros.length);
  const fractionWords = asNumber && rest ? [digitWords(zeros, language), cardinal(rest, language)].filter(Boolean).join(' ') : digitWords(fraction, language);
  return `${wholeWords} ${DECIMAL_WORD[language]} ${fractionWords}`;
}

/** An ordinal: "primeiro" / "primeira", "first", "primero" / "primera", "erste". */
export function ordinal(digits: string, language: SpeechLanguage, feminine = false): string {
  if (digits.length > MAX_DIGITS) return digitWords(digits, language);
  const words = LIBRARY[language].toOrdinal(BigInt(digits));
  // Portuguese and Spanish ordinals are adjectives ending in -o, each word of them.
  return feminine && (language === 'pt' || language === 'es') ? words.replace(/o\b/g, 'a') : words;
}

/** Whether a scale word ends the number, so a currency takes "de": "um milhão de reais", "un millón de euros". */
export const ENDS_IN_MILLIONS = /(?:milhão|milhões|bilhão|bilhões|trilhão|trilhões|millón|millones|billón|billones)$/;

function portuguese(value: bigint, agreement: Agreement): string {
  if (value < 1000n) return portugueseHundreds(Number(value), agreement === 'feminine');
  const groups: number[] = [];
  for (let rest = value; rest > 0n; rest /= 1000n) groups.push(Number(rest % 1000n));
  if (groups.length > PT_SCALES.length) return digitWords(value.toString(), 'pt');
  const parts: { words: string; group: number }[] = [];
  for (let scale = groups.length - 1; scale >= 0; scale--) {
    const group = groups[scale];
    if (group === 0) continue;
    // Millions and up are masculine nouns ("duzentos milhões de pessoas"); thousands agree ("duzentas mil pessoas").
    const feminine = agreement === 'feminine' && scale <= 1;
    const [one, many] = PT_SCALES[scale];
    const words = scale === 0 ? portugueseHundreds(group, feminine) : scale === 1 && group === 1 ? 'mil' : `${portugueseHundreds(group, feminine)} ${group === 1 ? one : many}`;
    parts.push({ words, group });
  }
  // "e" joins the last part when it is under a hundred or a round hundred: "mil e duzentos", "mil duzentos e cinquenta".
  const last = parts[parts.length - 1];
  const and = parts.length > 1 && (last.group < 100 || last.group % 100 === 0);
  return parts.map((part, i) => (i === parts.length - 1 && and ? `e ${part.words}` : part.words)).join(' ');
}

/** The words of 0..999, made once each: the engine says numbers on every sentence. */
const memo = new Map<string, string>();
function remembered(key: string, make: () => string): string {
  let words = memo.get(key);
  if (words === undefined) memo.set(key, (words = make()));
  return words;
}

function portugueseHundreds(value: number, feminine: boolean): string {
  return remembered(`pt${value}${feminine ? 'f' : ''}`, () => {
    const words = LIBRARY.pt.toCardinal(value).replace(PT_BR_WORD, (word) => PT_BR[word]);
    return feminine ? words.replace(/\bum$/, 'uma').replace(/\bdois$/, 'duas').replace(/(?<=\w)entos\b/, 'entas') : words;
  });
}

function spanish(value: bigint, agreement: Agreement): string {
  const millions: number[] = [];
  for (let rest = value; rest > 0n; rest /= 1_000_000n) millions.push(Number(rest % 1_000_000n));
  if (value === 0n) return 'cero';
  if (millions.length > ES_SCALES.length + 1) return digitWords(value.toString(), 'es');
  const parts: string[] = [];
  for (let scale = millions.length - 1; scale >= 0; scale--) {
    const group = millions[scale];
    if (group === 0) continue;
    if (scale === 0) parts.push(spanishThousands(group, agreement));
    else parts.push(`${spanishThousands(group, 'masculine')} ${group === 1 ? ES_SCALES[scale - 1][0] : ES_SCALES[scale - 1][1]}`);
  }
  return parts.join(' ');
}

/** 1..999,999 in Spanish: "veintiún mil", "doscientas mil personas". */
function spanishThousands(value: number, agreement: Agreement): string {
  const thousands = Math.floor(value / 1000);
  const rest = value % 1000;
  const parts: string[] = [];
  // "mil" is masculine for "uno" ("veintiún mil") but lets hundreds agree ("doscientas mil personas").
  if (thousands === 1) parts.push('mil');
  else if (thousands > 1) {
    const words = spanishHundreds(thousands, 'masculine');
    parts.push(`${agreement === 'feminine' ? words.replace(/(?<=\w)ientos\b/g, 'ientas') : words} mil`);
  }
  if (rest > 0) parts.push(spanishHundreds(rest, agreement));
  return parts.join(' ');
}

function spanishHundreds(value: number, agreement: Agreement): string {
  return remembered(`es${value}${agreement}`, () => spanishHundredsWords(value, agreement));
}

function spanishHundredsWords(value: number, agreement: Agreement): string {
  const words = LIBRARY.es.toCardinal(value).replace('dieciseis', 'dieciséis');
  if (agreement === 'alone') return words;
  if (agreement === 'masculine') return words.replace(/veintiuno$/, 'veintiún').replace(/\buno$/, 'un');
  return words.replace(/uno$/, 'una').replace(/(?<=\w)ientos\b/g, 'ientas');
}
