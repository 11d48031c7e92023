import { performance } from 'node:perf_hooks';
import { SentenceSplitter, speechText, type Pronunciation } from '../src/voice/engines/pipeline/speech-text';

/**
 * A sanity check of speech-text.ts's cost (it runs on every sentence of every call): 10,000
 * sentences of real campaign text, split and said in each language, timed after a warm-up.
 * `node scripts/build.mjs && node dist/bench/speech-text.js`; well under a second is the bar.
 */
const SENTENCES: Record<string, string[]> = {
  pt: [
    'Olá, **Marina**! Sou a Ana, da Vozgate 😀.',
    'O plano sai por R$ 1.250,90 à vista ou em 12x de R$ 99,90 sem juros.',
    'Confirma o CPF 123.456.789-09 e o CEP 01310-100?',
    'Posso ligar no (11) 98765-4321 ou no +55 11 98765-4321 no dia 15/03 às 14h30?',
    'Seu pedido AB12C9 chega em 15/03/2026, com 2,5% de desconto, na Av. Paulista com o Sr. Silva.',
  ],
  en: ['It costs $1,250.90, or 12x of $99.90.', 'Call +1 (415) 555-0123 on 03/15 at 2:30 PM, Mr. Smith.', 'Your order AB12C9 ships on 2026-03-15 with 2.5% off.'],
  es: ['Cuesta 1.250,90 € o 12x de $ 99,90.', 'El Sr. García llama el 15/03/2026 a las 14:30 al +34 612 34 56 78.'],
  de: ['Es kostet 1.250,90 € oder z. B. 12x 99,90 €.', 'Am 15. März um 14.30 Uhr ruft Dr. Müller an, Nr. 5, 2,5 % Rabatt.'],
};
const PRONUNCIATIONS: Pronunciation[] = Array.from({ length: 100 }, (_, i) => ({ word: `Produto${i}`, say_as: `produto ${i}` }));
const COUNT = 10_000;

function run(language: string): { sentences: number; characters: number } {
  const texts = SENTENCES[language];
  let characters = 0;
  const splitter = new SentenceSplitter();
  for (let i = 0; i < COUNT; i++) {
    for (const chunk of splitter.push(`${texts[i % texts.length]} `)) characters += speechText(chunk, language, PRONUNCIATIONS).length;
  }
  const rest = splitter.flush();
  if (rest) characters += speechText(rest, language, PRONUNCIATIONS).length;
  return { sentences: COUNT, characters };
}

for (const language of Object.keys(SENTENCES)) {
  run(language); // warm-up: the regular expressions and n2words compiled by V8
  const started = performance.now();
  const { sentences, characters } = run(language);
  const ms = performance.now() - started;
  console.log(`${language}: ${sentences} sentences (${characters} characters said) in ${ms.toFixed(0)} ms, ${((ms * 1000) / sentences).toFixed(1)} µs a sentence`);
}
