import { type Agreement, cardinal, decimal, digitWords, ENDS_IN_MILLIONS, ordinal, type SpeechLanguage } from './number-words';
import { type Currency, WORDS } from './speech-words';

/**
 * Digits said as a person would say them (design.md, "Text for the voice"): money, dates,
 * times, percentages, ordinals and numbers in words; identifiers (CPF, CNPJ, CEP, phone
 * numbers, codes of letters and digits, long numbers) digit by digit, in their groups.
 *
 * One pass of one regular expression, compiled once: at each place the first kind that
 * matches wins, so the longer shapes (a CPF, a date) come before a bare number.
 */

/** A number as written: digits, maybe grouped or with a fraction by `.` or `,`. */
const NUM = String.raw`\d+(?:[.,]\d+)*`;
/** Not inside a word or a number. */
const START = String.raw`(?<![\p{L}\p{N}_])`;
const SCALE = 'mil|milhão|milhões|bilhão|bilhões|millón|millones|million|millions|billion|billions|Millionen|Million|Milliarden|Milliarde';

const TOKEN = new RegExp(
  [
    String.raw`(?<cur>R\$|US\$|\$|€|£|\b(?:BRL|USD|EUR)\b)\s?(?<camt>${NUM})(?:\s(?<cscale>${SCALE})\b)?`,
    String.raw`(?<plus>\+\d{1,3}(?:[ .-]?\(?\d{1,5}\)?){1,5})`,
    String.raw`(?<paren>\(\d{2,4}\)\s?\d{3,5}[-. ]?\d{4})(?!\d)`,
    String.raw`#(?=\d)`,
    // The rest begin at a digit or a capital that begins a word (the first test fails fast on the other characters).
    String.raw`(?=[\dA-Z])${START}(?:${[
      String.raw`(?<cnpj>\d{2}\.\d{3}\.\d{3}/\d{4}-\d{2})(?!\d)`,
      String.raw`(?<cpf>\d{3}\.\d{3}\.\d{3}-\d{2})(?!\d)`,
      String.raw`(?<iy>\d{4})-(?<im>\d{2})-(?<id>\d{2})(?![\d-])`,
      String.raw`(?<sd>\d{1,2})/(?<sm>\d{1,2})(?:/(?<sy>\d{4}|\d{2}))?(?![\d/])`,
      String.raw`(?<dd>\d{1,2})\.(?<dm>\d{1,2})\.(?<dy>\d{4}|\d{2})?(?![\d.])`,
      String.raw`(?<gday>\d{1,2})\.(?=\s+(?:${WORDS.de.months.join('|')})\b)`,
      String.raw`(?<th>\d{1,2})(?:h(?<thm>\d{2})?(?:min)?|:(?<tcm>\d{2})(?::\d{2})?|\.(?<tdm>\d{2})(?=\s?Uhr))(?![\p{L}\p{N}])(?<uhr>\s?Uhr\b)?`,
      String.raw`(?<ids>\d+(?:[-.]\d+)*-\d+)(?![\d-])`,
      String.raw`(?<pct>${NUM})\s?%`,
      String.raw`(?<samt>${NUM})\s?(?<scur>€|\$|(?:EUR|USD|BRL|reais|euros|dólares|dollars|Euro)(?![\p{L}]))`,
      String.raw`(?<ord>\d+)(?:\.?(?<ordpt>[ºª])|(?<orden>st|nd|rd|th)\b)`,
      String.raw`(?<times>\d+)x(?![\p{L}\p{N}])`,
      String.raw`(?<code>(?=[A-Z0-9]*[A-Z])(?=[A-Z0-9]*\d)[A-Z0-9]{4,})(?![\p{L}\p{N}])`,
      String.raw`(?<num>${NUM})`,
    ].join('|')})`,
  ].join('|'),
  'gu',
);
const NUM_ANYWHERE = new RegExp(NUM, 'g');
const HAS_DIGIT = /\d/;
/** The word after a number, to agree with it. */
const NEXT_WORD = /\s+(\p{L}+)/uy;
/** A German date's day declines: "am fünfzehnten März", "der fünfzehnte März", "fünfzehnter März". */
const GERMAN_DATIVE = /(?:^|\s)(?:am|vom|zum|bis|ab|seit|dem|den)\s+$/i;
const GERMAN_ARTICLE = /(?:^|\s)(?:der|die|das)\s+$/i;
const SUFFIX_CURRENCY: Record<string, string> = { reais: 'R$', euros: '€', Euro: '€', dólares: 'US$', dollars: '$' };

type Groups = Record<string, string | undefined>;

/** `text` with its numbers said in `language`. */
export function spokenNumbers(text: string, language: SpeechLanguage): string {
  // Most sentences have no digit, and every kind below has one.
  if (!HAS_DIGIT.test(text)) return text;
  // An exec loop: `replace` with a function is several times slower with named groups.
  let said = '';
  let from = 0;
  TOKEN.lastIndex = 0;
  for (let match = TOKEN.exec(text); match; match = TOKEN.exec(text)) {
    const written = match[0];
    said += `${text.slice(from, match.index)} ${token(written, match.groups!, text, match.index, language) ?? plain(written, language)} `;
    from = match.index + written.length;
  }
  return said + text.slice(from);
}

function token(match: string, g: Groups, text: string, offset: number, language: SpeechLanguage): string | null {
  const words = WORDS[language];
  if (g.camt !== undefined) return money(g.camt, currencyOf(g.cur!, language), g.cscale, language);
  if (g.samt !== undefined) return money(g.samt, currencyOf(g.scur!, language), undefined, language);
  if (g.plus !== undefined) return `${words.plus} ${identifier(g.plus.slice(1), language)}`;
  if (g.paren !== undefined || g.cnpj !== undefined || g.cpf !== undefined) return identifier(match, language);
  if (g.iy !== undefined) return date(g.id!, g.im!, g.iy, text, offset, language);
  if (g.sd !== undefined) {
    // English writes the month first; a first number over 12 can only be a day.
    const [day, month] = language === 'en' && Number(g.sd) <= 12 ? [g.sm!, g.sd] : [g.sd, g.sm!];
    return date(day, month, g.sy, text, offset, language);
  }
  // "15.03." is a German date; elsewhere the full stop after it ends the sentence.
  if (g.dd !== undefined) return g.dy !== undefined || language === 'de' ? date(g.dd, g.dm!, g.dy, text, offset, language) : null;
  if (g.gday !== undefined) return language === 'de' && Number(g.gday) >= 1 && Number(g.gday) <= 31 ? germanDay(g.gday, text, offset) : null;
  if (g.th !== undefined) return time(g.th, g.thm ?? g.tcm ?? g.tdm, g.thm !== undefined || (g.tcm === undefined && g.tdm === undefined), language);
  if (g.ids !== undefined) {
    if (g.ids.replace(/\D/g, '').length >= 7) return identifier(g.ids, language);
    // A short one is a range: "10-20 dias".
    const ends = g.ids.split('-');
    const agreement = agreementWith(text, offset + match.length, language);
    return ends.length === 2 ? `${amount(ends[0], language, agreement)} ${words.range} ${amount(ends[1], language, agreement)}` : null;
  }
  if (g.pct !== undefined) return `${amount(g.pct, language, language === 'de' ? 'masculine' : 'alone')} ${words.percent}`;
  if (g.ord !== undefined) {
    if (g.ordpt !== undefined) return language === 'pt' || language === 'es' ? ordinal(g.ord, language, g.ordpt === 'ª') : null;
    return language === 'en' ? ordinal(g.ord, language) : null;
  }
  if (g.times !== undefined) {
    const count = g.times;
    return `${cardinal(count, language, language === 'en' ? 'alone' : 'feminine')} ${count === '1' ? words.times[0] : words.times[1]}`;
  }
  if (match === '#') return words.numberSign;
  if (g.code !== undefined) return /^\d+[A-Z]+$/.test(g.code) ? null : identifier(g.code, language);
  const raw = g.num!;
  // A long number, or one that begins with a zero, names something (an order, a protocol): said in digits.
  if (/^\d+$/.test(raw) && (raw.length >= 6 || (raw.length > 1 && raw[0] === '0'))) return identifier(raw, language);
  // An English year: "twenty twenty-six" (a quantity of that size is written "1,999").
  if (language === 'en' && /^(?:19|20)\d\d$/.test(raw)) return englishYear(raw);
  return amount(raw, language, agreementWith(text, offset + match.length, language));
}

/** A match no rule took: its numbers said one by one, the rest as written. */
function plain(match: string, language: SpeechLanguage): string {
  return match.replace(NUM_ANYWHERE, (raw) => amount(raw, language, 'alone'));
}

/** A number as written in `language` ("1.250,90"; "1,250.90" in English): whole and fraction; null when it is none. */
export function parseNumber(raw: string, language: SpeechLanguage): { whole: string; fraction: string | null } | null {
  const point = language === 'en' ? '.' : ',';
  const lastDot = raw.lastIndexOf('.');
  const lastComma = raw.lastIndexOf(',');
  if (lastDot < 0 && lastComma < 0) return { whole: raw, fraction: null };
  // With both marks, the last is the decimal one, whatever the language.
  let decimalAt = lastDot >= 0 && lastComma >= 0 ? Math.max(lastDot, lastComma) : -1;
  if (decimalAt < 0) {
    const mark = lastDot >= 0 ? '.' : ',';
    const parts = raw.split(mark);
    const grouped = parts[0].length <= 3 && parts.slice(1).every((part) => part.length === 3);
    if (mark === point && parts.length === 2) decimalAt = raw.indexOf(mark);
    else if (grouped) return { whole: parts.join(''), fraction: null };
    else if (parts.length === 2) decimalAt = raw.indexOf(mark);
    else return null;
  }
  const whole = raw.slice(0, decimalAt);
  const groups = whole.split(/[.,]/);
  if (groups.length > 1 && !(groups[0].length <= 3 && groups.slice(1).every((group) => group.length === 3))) return null;
  return { whole: groups.join(''), fraction: raw.slice(decimalAt + 1) };
}

function amount(raw: string, language: SpeechLanguage, agreement: Agreement): string {
  const number = parseNumber(raw, language);
  if (!number) return identifier(raw, language);
  return number.fraction === null ? cardinal(number.whole, language, agreement) : decimal(number.whole, number.fraction, language);
}

function agreementWith(text: string, end: number, language: SpeechLanguage): Agreement {
  NEXT_WORD.lastIndex = end;
  const next = NEXT_WORD.exec(text)?.[1];
  if (!next || language === 'en') return 'alone';
  if (WORDS[language].feminine.has(language === 'de' ? next : next.toLowerCase())) return 'feminine';
  // Spanish shortens before any noun ("un día"), German before a noun, which it capitalises ("ein Tag").
  if (language === 'es' || (language === 'de' && next[0] !== next[0].toLowerCase())) return 'masculine';
  return 'alone';
}

function currencyOf(written: string, language: SpeechLanguage): Currency {
  const { currencies } = WORDS[language];
  const symbol = SUFFIX_CURRENCY[written] ?? written;
  // "US$" is the dollar wherever "$" is not.
  return currencies[symbol] ?? currencies[symbol === 'US$' ? 'USD' : '$'];
}

function money(raw: string, currency: Currency, scale: string | undefined, language: SpeechLanguage): string {
  const number = parseNumber(raw, language);
  if (!number) return `${identifier(raw, language)} ${currency.many}`;
  const { whole, fraction } = number;
  if (scale) return `${amount(raw, language, 'masculine')} ${scale} ${ENDS_IN_MILLIONS.test(scale) ? 'de ' : ''}${currency.many}`;
  // More than two decimals is no price in cents: said as a number.
  if (fraction !== null && fraction.length > 2) return `${decimal(whole, fraction, language)} ${currency.many}`;
  const cents = fraction === null ? 0 : Number(fraction.padEnd(2, '0'));
  const units = BigInt(whole);
  const parts: string[] = [];
  if (units > 0n || cents === 0) {
    const words = cardinal(whole, language, currency.feminine ? 'feminine' : 'masculine');
    // "um milhão de reais", "un millón de euros".
    const of = ENDS_IN_MILLIONS.test(words) ? 'de ' : '';
    parts.push(`${words} ${of}${units === 1n ? currency.one : currency.many}`);
  }
  if (cents > 0) parts.push(`${cardinal(String(cents), language, 'masculine')} ${cents === 1 ? currency.cent : currency.cents}`);
  return parts.join(` ${WORDS[language].centsJoin} `);
}

function date(dayText: string, monthText: string, yearText: string | undefined, text: string, offset: number, language: SpeechLanguage): string | null {
  const day = Number(dayText);
  const month = Number(monthText);
  if (day < 1 || day > 31 || month < 1 || month > 12) return null;
  const monthName = WORDS[language].months[month - 1];
  const year = yearText === undefined ? null : yearText.length === 2 ? `20${yearText}` : yearText;
  const dayDigits = String(day);
  switch (language) {
    case 'en':
      return `${monthName} ${ordinal(dayDigits, 'en')}${year ? `, ${englishYear(year)}` : ''}`;
    case 'de':
      return `${germanDay(dayDigits, text, offset)} ${monthName}${year ? ` ${cardinal(year, 'de')}` : ''}`;
    default: {
      // "primeiro de março", "primero de marzo"; other days are cardinals.
      const dayWords = day === 1 ? ordinal('1', language) : cardinal(dayDigits, language);
      return `${dayWords} de ${monthName}${year ? ` de ${cardinal(year, language)}` : ''}`;
    }
  }
}

function germanDay(day: string, text: string, offset: number): string {
  const before = text.slice(Math.max(0, offset - 12), offset);
  return `${ordinal(String(Number(day)), 'de')}${GERMAN_DATIVE.test(before) ? 'n' : GERMAN_ARTICLE.test(before) ? '' : 'r'}`;
}

/** "2026" -> "twenty twenty-six", "2005" -> "two thousand five", "1999" -> "nineteen ninety-nine". */
function englishYear(year: string): string {
  const value = Number(year);
  if (value < 1100 || value > 2099 || (value >= 2000 && value < 2010) || value % 100 === 0) return cardinal(year, 'en');
  const tail = value % 100;
  return `${cardinal(year.slice(0, 2), 'en')} ${tail < 10 ? `oh ${cardinal(String(tail), 'en')}` : cardinal(String(tail), 'en')}`;
}

/** A time of day: "14h30", "14:30", "14h", "14.30 Uhr". */
function time(hourText: string, minuteText: string | undefined, hoursForm: boolean, language: SpeechLanguage): string | null {
  const hour = Number(hourText);
  const minute = minuteText === undefined ? 0 : Number(minuteText);
  if (hour > 24 || minute > 59) return null;
  const minutes = minute === 0 ? '' : cardinal(String(minute), language);
  switch (language) {
    case 'pt': {
      const hours = cardinal(String(hour), 'pt', 'feminine');
      if (minutes) return `${hours} e ${minutes}`;
      return `${hours} ${hour === 1 ? 'hora' : 'horas'}`;
    }
    case 'es': {
      const hours = cardinal(String(hour), 'es', 'feminine');
      if (minutes) return `${hours} y ${minutes}`;
      return hoursForm ? `${hours} ${hour === 1 ? 'hora' : 'horas'}` : `${hours} en punto`;
    }
    case 'en': {
      // A person says "two thirty PM", not "fourteen thirty".
      const hours = cardinal(String(hour % 12 || 12), 'en');
      const said = !minutes ? `${hours} o'clock` : minute < 10 ? `${hours} oh ${minutes}` : `${hours} ${minutes}`;
      return hour > 12 || hour === 0 ? `${said.replace(" o'clock", '')} ${hour === 0 || hour === 24 ? 'AM' : 'PM'}` : said;
    }
    case 'de':
      return `${cardinal(String(hour), 'de', 'masculine')} Uhr${minutes ? ` ${minutes}` : ''}`;
  }
}

/**
 * An identifier in its groups, digit by digit, letters by name: "123.456.789-09" -> "um dois
 * três, quatro cinco seis, ..."; a group longer than five digits is cut in threes.
 */
export function identifier(written: string, language: SpeechLanguage): string {
  const { letters } = WORDS[language];
  const groups: string[] = [];
  for (const group of written.split(/[^A-Za-z0-9]+/)) {
    if (!group) continue;
    if (/^\d{6,}$/.test(group)) {
      for (let at = 0; at < group.length; at += 3) {
        // No lone digit at the end: "1234567" -> "123 4567".
        const end = group.length - (at + 3) === 1 ? group.length : at + 3;
        groups.push(digitWords(group.slice(at, end), language));
        at = end - 3;
      }
      continue;
    }
    const spoken = group.replace(/[A-Za-z]|\d+/g, (part) => ` ${/\d/.test(part) ? digitWords(part, language) : letters[part.toUpperCase().charCodeAt(0) - 65]} `);
    groups.push(spoken.trim().replace(/\s+/g, ' '));
  }
  return groups.join(', ');
}
