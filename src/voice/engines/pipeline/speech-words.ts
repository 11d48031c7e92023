import type { SpeechLanguage } from './number-words';

/** The words the voice says for symbols, months, letters and abbreviations, per language (design.md, "Text for the voice"). */

export interface Currency {
  one: string;
  many: string;
  cent: string;
  cents: string;
  /** The number agrees: "duas libras". */
  feminine?: boolean;
}

export interface LanguageWords {
  months: string[];
  /** The currencies by symbol or code (`$` is the language's own dollar or peso). */
  currencies: Record<string, Currency>;
  /** Between a currency's units and its cents. */
  centsJoin: string;
  percent: string;
  /** `10-20` */
  range: string;
  plus: string;
  /** `#123` */
  numberSign: string;
  /** `12x` (instalments), by count: one, many. */
  times: [string, string];
  /** Letter names for codes ("AB12" is read letter by letter). */
  letters: string[];
  /** Abbreviations said in full, by their written form without the full stop. */
  abbreviations: Record<string, string>;
  /** Nouns that make a number before them feminine ("duas horas", "una hora", "eine Stunde"). */
  feminine: Set<string>;
}

const REAL = { pt: ['real', 'reais'], en: ['real', 'reais'], es: ['real', 'reales'], de: ['Real', 'Real'] };

export const WORDS: Record<SpeechLanguage, LanguageWords> = {
  pt: {
    months: ['janeiro', 'fevereiro', 'março', 'abril', 'maio', 'junho', 'julho', 'agosto', 'setembro', 'outubro', 'novembro', 'dezembro'],
    currencies: {
      'R$': { one: REAL.pt[0], many: REAL.pt[1], cent: 'centavo', cents: 'centavos' },
      BRL: { one: REAL.pt[0], many: REAL.pt[1], cent: 'centavo', cents: 'centavos' },
      $: { one: 'dólar', many: 'dólares', cent: 'centavo', cents: 'centavos' },
      USD: { one: 'dólar', many: 'dólares', cent: 'centavo', cents: 'centavos' },
      '€': { one: 'euro', many: 'euros', cent: 'centavo', cents: 'centavos' },
      EUR: { one: 'euro', many: 'euros', cent: 'centavo', cents: 'centavos' },
      '£': { one: 'libra', many: 'libras', cent: 'pêni', cents: 'pence', feminine: true },
    },
    centsJoin: 'e',
    percent: 'por cento',
    range: 'a',
    plus: 'mais',
    numberSign: 'número',
    times: ['vez', 'vezes'],
    letters: 'á bê cê dê é éfe gê agá i jota cá éle ême ene ó pê quê érre ésse tê u vê dáblio xis ípsilon zê'.split(' '),
    abbreviations: { Sr: 'Senhor', Sra: 'Senhora', Srta: 'Senhorita', Dr: 'Doutor', Dra: 'Doutora', Av: 'Avenida', Prof: 'Professor', Profa: 'Professora', Tel: 'Telefone' },
    feminine: new Set(
      'hora horas vez vezes parcela parcelas prestação prestações pessoa pessoas semana semanas unidade unidades opção opções noite noites diária diárias vaga vagas mensalidade mensalidades fatura faturas conta contas linha linhas'.split(' '),
    ),
  },
  en: {
    months: ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'],
    currencies: {
      $: { one: 'dollar', many: 'dollars', cent: 'cent', cents: 'cents' },
      USD: { one: 'dollar', many: 'dollars', cent: 'cent', cents: 'cents' },
      '€': { one: 'euro', many: 'euros', cent: 'cent', cents: 'cents' },
      EUR: { one: 'euro', many: 'euros', cent: 'cent', cents: 'cents' },
      '£': { one: 'pound', many: 'pounds', cent: 'penny', cents: 'pence' },
      'R$': { one: REAL.en[0], many: REAL.en[1], cent: 'centavo', cents: 'centavos' },
      BRL: { one: REAL.en[0], many: REAL.en[1], cent: 'centavo', cents: 'centavos' },
    },
    centsJoin: 'and',
    percent: 'percent',
    range: 'to',
    plus: 'plus',
    numberSign: 'number',
    times: ['time', 'times'],
    letters: 'ay bee see dee ee eff gee aitch eye jay kay el em en oh pee cue ar ess tee you vee double-u ex why zee'.split(' '),
    abbreviations: { Mr: 'Mister', Mrs: 'Missus', Dr: 'Doctor', Ave: 'Avenue', Prof: 'Professor', approx: 'approximately', 'e.g': 'for example', 'i.e': 'that is' },
    feminine: new Set(),
  },
  es: {
    months: ['enero', 'febrero', 'marzo', 'abril', 'mayo', 'junio', 'julio', 'agosto', 'septiembre', 'octubre', 'noviembre', 'diciembre'],
    currencies: {
      // A bare "$" in Spanish is the peso of most of Latin America; the dollar is written "US$" or "USD".
      $: { one: 'peso', many: 'pesos', cent: 'centavo', cents: 'centavos' },
      'US$': { one: 'dólar', many: 'dólares', cent: 'centavo', cents: 'centavos' },
      USD: { one: 'dólar', many: 'dólares', cent: 'centavo', cents: 'centavos' },
      '€': { one: 'euro', many: 'euros', cent: 'céntimo', cents: 'céntimos' },
      EUR: { one: 'euro', many: 'euros', cent: 'céntimo', cents: 'céntimos' },
      '£': { one: 'libra', many: 'libras', cent: 'penique', cents: 'peniques', feminine: true },
      'R$': { one: REAL.es[0], many: REAL.es[1], cent: 'centavo', cents: 'centavos' },
      BRL: { one: REAL.es[0], many: REAL.es[1], cent: 'centavo', cents: 'centavos' },
    },
    centsJoin: 'con',
    percent: 'por ciento',
    range: 'a',
    plus: 'más',
    numberSign: 'número',
    times: ['vez', 'veces'],
    letters: 'a be ce de e efe ge hache i jota ka ele eme ene o pe cu erre ese te u uve uve-doble equis ye zeta'.split(' '),
    abbreviations: { Sr: 'señor', Sra: 'señora', Srta: 'señorita', Dr: 'doctor', Dra: 'doctora', Av: 'avenida', Avda: 'avenida', Ud: 'usted', Uds: 'ustedes', Prof: 'profesor', Tel: 'teléfono' },
    feminine: new Set('hora horas vez veces cuota cuotas persona personas semana semanas unidad unidades opción opciones noche noches mensualidad mensualidades factura facturas'.split(' ')),
  },
  de: {
    months: ['Januar', 'Februar', 'März', 'April', 'Mai', 'Juni', 'Juli', 'August', 'September', 'Oktober', 'November', 'Dezember'],
    currencies: {
      '€': { one: 'Euro', many: 'Euro', cent: 'Cent', cents: 'Cent' },
      EUR: { one: 'Euro', many: 'Euro', cent: 'Cent', cents: 'Cent' },
      $: { one: 'Dollar', many: 'Dollar', cent: 'Cent', cents: 'Cent' },
      USD: { one: 'Dollar', many: 'Dollar', cent: 'Cent', cents: 'Cent' },
      '£': { one: 'Pfund', many: 'Pfund', cent: 'Penny', cents: 'Pence' },
      'R$': { one: REAL.de[0], many: REAL.de[1], cent: 'Centavo', cents: 'Centavos' },
      BRL: { one: REAL.de[0], many: REAL.de[1], cent: 'Centavo', cents: 'Centavos' },
    },
    centsJoin: 'und',
    percent: 'Prozent',
    range: 'bis',
    plus: 'plus',
    numberSign: 'Nummer',
    times: ['Mal', 'Mal'],
    letters: 'a be ze de e ef ge ha i jott ka el em en o pe ku er es te u vau we ix ypsilon zett'.split(' '),
    abbreviations: {
      Nr: 'Nummer',
      'z. B': 'zum Beispiel',
      'z.B': 'zum Beispiel',
      'd. h': 'das heißt',
      'd.h': 'das heißt',
      'u. a': 'unter anderem',
      Dr: 'Doktor',
      Str: 'Straße',
      bzw: 'beziehungsweise',
      ca: 'circa',
      Tel: 'Telefon',
      Prof: 'Professor',
      inkl: 'inklusive',
      evtl: 'eventuell',
      ggf: 'gegebenenfalls',
    },
    feminine: new Set('Stunde Woche Person Rate Nacht Minute Nummer Rechnung Option Einheit'.split(' ')),
  },
};

/**
 * Written forms (lowercase, without their last full stop) after which a full stop does not
 * end a sentence, in any of the languages: the splitter does not know the call's language,
 * and none of these ends a sentence in another.
 */
export const ABBREVIATIONS = new Set(
  [
    ...Object.values(WORDS).flatMap((words) => Object.keys(words.abbreviations)),
    ...['sres', 'dña', 'núm', 'pág', 'nº', 'st', 'jr', 'vs', 'hr', 'hrn', 'fr', 'ms', 'mrs', 'mr', 'u.a', 'av', 'avda'],
  ].map((form) => form.toLowerCase()),
);
