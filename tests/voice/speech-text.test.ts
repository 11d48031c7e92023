import { type Pronunciation, speechText } from '../../src/voice/engines/pipeline/speech-text';

/** [what the model wrote, what the voice says] */
type Cases = [string, string][];

const portuguese: Cases = [
  // Money, instalments.
  ['R$ 1.250,90', 'mil duzentos e cinquenta reais e noventa centavos'],
  ['Em 12x de R$ 99,90 sem juros.', 'Em doze vezes de noventa e nove reais e noventa centavos sem juros.'],
  ['Ou 2x de R$ 625,45.', 'Ou duas vezes de seiscentos e vinte e cinco reais e quarenta e cinco centavos.'],
  ['R$1,00, R$ 0,50 ou R$ 21', 'um real, cinquenta centavos ou vinte e um reais'],
  ['R$ 2 milhões, R$ 1.000.000,00 e R$ 10 mil', 'dois milhões de reais, um milhão de reais e dez mil reais'],
  ['US$ 15, € 30,00 ou £ 2', 'quinze dólares, trinta euros ou duas libras'],
  ['São 1.250,90 reais.', 'São mil duzentos e cinquenta reais e noventa centavos.'],
  // Identifiers, in their groups.
  ['Seu CPF é 123.456.789-09?', 'Seu CPF é um dois três, quatro cinco seis, sete oito nove, zero nove?'],
  ['CNPJ 12.345.678/0001-90', 'CNPJ um dois, três quatro cinco, seis sete oito, zero zero zero um, nove zero'],
  ['CEP 01310-100', 'CEP zero um três um zero, um zero zero'],
  ['Ligue +55 11 98765-4321', 'Ligue mais cinco cinco, um um, nove oito sete seis cinco, quatro três dois um'],
  ['Ligue (11) 98765-4321', 'Ligue um um, nove oito sete seis cinco, quatro três dois um'],
  ['Ligue 4002-8922', 'Ligue quatro zero zero dois, oito nove dois dois'],
  ['Código AB12C9.', 'Código á bê um dois cê nove.'],
  ['Protocolo 20260315001', 'Protocolo dois zero dois, seis zero três, um cinco zero, zero um'],
  ['Pedido #123', 'Pedido número cento e vinte e três'],
  // Dates and times.
  ['Dia 15/03', 'Dia quinze de março'],
  ['Vence em 15/03/2026.', 'Vence em quinze de março de dois mil e vinte e seis.'],
  ['Em 01/04/26', 'Em primeiro de abril de dois mil e vinte e seis'],
  ['Às 14h30 ou às 14:30', 'Às quatorze e trinta ou às quatorze e trinta'],
  ['Às 9h, à 1h, às 21h ou às 8h05', 'Às nove horas, à uma hora, às vinte e uma horas ou às oito e cinco'],
  // Percentages, ordinals, decimals, agreement, Brazilian numbers.
  ['Juros de 2,5% ao mês, desconto de 10%', 'Juros de dois vírgula cinco por cento ao mês, desconto de dez por cento'],
  ['O 1º lugar e a 2ª parcela', 'O primeiro lugar e a segunda parcela'],
  ['O valor é 12,5 ou 3,14159', 'O valor é doze vírgula cinco ou três vírgula um quatro um cinco nove'],
  ['1 hora, 2 horas, 22 parcelas, 2 dias, 1 dia, 201 pessoas', 'uma hora, duas horas, vinte e duas parcelas, dois dias, um dia, duzentas e uma pessoas'],
  ['16, 17, 19, 14', 'dezesseis, dezessete, dezenove, quatorze'],
  ['Em 1-2 horas ou 10-20 dias', 'Em uma a duas horas ou dez a vinte dias'],
  ['1200, 2026, 1.000.200', 'mil e duzentos, dois mil e vinte e seis, um milhão e duzentos'],
  ['1.200.000 e 2.500.000.000', 'um milhão e duzentos mil e dois bilhões e quinhentos milhões'],
  // Markdown, emoji, abbreviations.
  ['**Atenção:** _oferta_ válida', 'Atenção: oferta válida'],
  ['## Planos\n- **Básico**: R$ 49,90\n- *Pro*: R$ 99,90', 'Planos. Básico: quarenta e nove reais e noventa centavos. Pro: noventa e nove reais e noventa centavos'],
  ['1. Abra o app\n2. Toque em Pagar', 'Abra o app. Toque em Pagar'],
  ['Veja [nosso site](https://vozgate.com.br) 🎉👍🏽', 'Veja nosso site'],
  ['O Sr. Silva e a Dra. Ana, na Av. Paulista.', 'O Senhor Silva e a Doutora Ana, na Avenida Paulista.'],
  ['arquivo_final e `código`', 'arquivo_final e código'],
];

const english: Cases = [
  ['It costs $1,250.90.', 'It costs one thousand two hundred fifty dollars and ninety cents.'],
  ['Pay $12.50 or €30', 'Pay twelve dollars and fifty cents or thirty euros'],
  ['$1 and $0.01', 'one dollar and one cent'],
  ['Call +1 (415) 555-0123 or 415-555-0123', 'Call plus one, four one five, five five five, zero one two three or four one five, five five five, zero one two three'],
  ['On 03/15 or 15/03/2026 or 2026-03-15', 'On March fifteenth or March fifteenth, twenty twenty-six or March fifteenth, twenty twenty-six'],
  ['At 2:30 PM, 14:00 or 9:05', 'At two thirty PM, two PM or nine oh five'],
  ['A 2.5% rate, 1,250 people and 1.5 hours', 'A two point five percent rate, one thousand two hundred fifty people and one point five hours'],
  ['The 1st, 2nd, 3rd and 21st', 'The first, second, third and twenty-first'],
  ['Mr. Smith and Dr. Jones, e.g. on Ave. B', 'Mister Smith and Doctor Jones, for example on Avenue B'],
  ['Order AB12C9 in 12x', 'Order ay bee one two see nine in twelve times'],
  ['In 2005, 1999 and 2026', 'In two thousand five, nineteen ninety-nine and twenty twenty-six'],
  ['In 3-5 days', 'In three to five days'],
  ['**Great** news! 🎉', 'Great news!'],
];

const spanish: Cases = [
  ['Cuesta 1.250,90 €', 'Cuesta mil doscientos cincuenta euros con noventa céntimos'],
  ['Son 21 euros, US$ 100 o $ 500', 'Son veintiún euros, cien dólares o quinientos pesos'],
  ['En 12x de $ 99,90', 'En doce veces de noventa y nueve pesos con noventa centavos'],
  ['El 15/03/2026 a las 14:30', 'El quince de marzo de dos mil veintiséis a las catorce y treinta'],
  ['A las 10:00 o a las 9h', 'A las diez en punto o a las nueve horas'],
  ['Un 2,5% de interés', 'Un dos coma cinco por ciento de interés'],
  ['21 días, 1 hora, 1 mes, 200 personas, 16 años', 'veintiún días, una hora, un mes, doscientas personas, dieciséis años'],
  ['21.000 personas y 2.500.000.000', 'veintiún mil personas y dos mil quinientos millones'],
  ['El Sr. García y la Dra. López, Av. Reforma', 'El señor García y la doctora López, avenida Reforma'],
  ['El 1º y la 2ª', 'El primero y la segunda'],
  ['Código AB12C9, teléfono +34 612 34 56 78', 'Código a be uno dos ce nueve, teléfono más tres cuatro, seis uno dos, tres cuatro, cinco seis, siete ocho'],
  ['Tiene 1 opción. Número 1.', 'Tiene una opción. Número uno.'],
  ['*¡Hola!* 😊', '¡Hola!'],
];

const german: Cases = [
  ['Es kostet 1.250,90 €.', 'Es kostet eintausendzweihundertfünfzig Euro und neunzig Cent.'],
  ['Nur 12,50 EUR oder $ 3', 'Nur zwölf Euro und fünfzig Cent oder drei Dollar'],
  ['Am 15.03.2026 um 14:30 Uhr', 'Am fünfzehnten März zweitausendsechsundzwanzig um vierzehn Uhr dreißig'],
  ['Der 1.4. ist ein Montag', 'Der erste April ist ein Montag'],
  ['Am 15. März um 14.30 Uhr', 'Am fünfzehnten März um vierzehn Uhr dreißig'],
  ['Ab 9:05 bis 10 Uhr', 'Ab neun Uhr fünf bis zehn Uhr'],
  ['Mit 2,5 % Zinsen', 'Mit zwei Komma fünf Prozent Zinsen'],
  ['z. B. Nr. 5, d. h. Dr. Müller, Str. 3', 'zum Beispiel Nummer fünf, das heißt Doktor Müller, Straße drei'],
  ['1 Stunde, 1 Tag, 21 Tage, 1 oder 2', 'eine Stunde, ein Tag, einundzwanzig Tage, eins oder zwei'],
  ['In 3-5 Tagen', 'In drei bis fünf Tagen'],
  ['Bestellung AB12C9, Tel. +49 30 1234567', 'Bestellung a be eins zwei ze neun, Telefon plus vier neun, drei null, eins zwei drei, vier fünf sechs sieben'],
  ['Die 1.250 Kunden', 'Die eintausendzweihundertfünfzig Kunden'],
  ['### Ihre __Vorteile__ 👍', 'Ihre Vorteile'],
];

describe.each([
  ['pt', portuguese],
  ['en', english],
  ['es', spanish],
  ['de', german],
])('in %s', (language, cases) => {
  it.each(cases)('%j is said %j', (written, said) => {
    expect(speechText(written, language, [])).toBe(said);
  });
});

it('takes a region or a capital in the language code', () => {
  expect(speechText('R$ 10', 'pt-BR')).toBe('dez reais');
  expect(speechText('R$ 10', 'PT')).toBe('dez reais');
});

it('in another language, or none, only removes markdown and emoji, and says the pronunciations', () => {
  expect(speechText('**Bonjour** 😀 R$ 10, le 15/03', 'fr')).toBe('Bonjour R$ 10, le 15/03');
  expect(speechText('_Olá_ 😀 **Vozgate**', null, [{ word: 'Vozgate', say_as: 'vóz-gueit' }])).toBe('Olá vóz-gueit');
});

describe('pronunciations', () => {
  const pronunciations: Pronunciation[] = [
    { word: 'Vozgate', say_as: 'vóz-gueit' },
    { word: 'SAC', say_as: 'saque' },
    { word: 'São Paulo FC', say_as: 'São Paulo Futebol Clube' },
    { word: 'C++', say_as: 'cê mais mais' },
  ];

  it('replaces whole words only, the longest first, before the numbers are said', () => {
    expect(speechText('A Vozgate e o SAC: Vozgates não.', 'pt', pronunciations)).toBe('A vóz-gueit e o saque: Vozgates não.');
    expect(speechText('Torço pelo São Paulo FC desde 1990.', 'pt', pronunciations)).toBe('Torço pelo São Paulo Futebol Clube desde mil novecentos e noventa.');
    expect(speechText('Sei C++ e C.', 'pt', pronunciations)).toBe('Sei cê mais mais e C.');
  });

  it('matches a word in any case, but an acronym only as written', () => {
    expect(speechText('vozgate, VOZGATE, sac', 'pt', pronunciations)).toBe('vóz-gueit, vóz-gueit, sac');
  });

  it('takes any text as a word, as written (nothing in it is a pattern)', () => {
    expect(speechText('preço (a.b) e a.b', 'pt', [{ word: '(a.b)', say_as: 'x' }, { word: '.*', say_as: 'y' }])).toBe('preço x e a.b');
  });
});

it('says a text of any length or shape without failing', () => {
  const huge = '1,000,000,000,000,000,000,000,000,000,000,000,000';
  const odd = ['', '   ', '9'.repeat(5000), huge, `$${huge}.50`, `R$ ${huge.replace(/,/g, '.')},50`, `${'9'.repeat(30)}º ${'9'.repeat(30)}x ${'9'.repeat(30)}%`];
  odd.push('1.2.3.4,5,6', 'R$', 'R$ ,', '%%%', '12/13/14', '99:99', '+', '(11)', '#', '*'.repeat(1000), '\u0000\uFFFF');
  for (const text of odd) {
    for (const language of ['pt', 'en', 'es', 'de']) expect(speechText(text, language)).not.toMatch(/undefined|NaN|\d/);
    for (const language of ['fr', null]) expect(speechText(text, language)).not.toMatch(/undefined|NaN/);
  }
  // A number past the scales is said digit by digit.
  expect(speechText('1.000.000.000.000.000 pessoas', 'pt')).toBe(`um ${'zero '.repeat(15)}pessoas`);
});
