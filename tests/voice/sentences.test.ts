import { SentenceSplitter } from '../../src/voice/engines/pipeline/speech-text';

/** Feeds text in the pieces a model streams it, and collects the sentences. */
function split(pieces: string[]): string[] {
  const splitter = new SentenceSplitter();
  const sentences = pieces.flatMap((piece) => splitter.push(piece));
  const rest = splitter.flush();
  return rest ? [...sentences, rest] : sentences;
}

it('cuts streamed text at the ends of sentences, whatever the pieces', () => {
  const text = 'Olá, Marina Souza Lima! Seu pedido 123 foi enviado. Posso ajudar em algo mais?';
  const expected = ['Olá, Marina Souza Lima!', 'Seu pedido 123 foi enviado.', 'Posso ajudar em algo mais?'];
  expect(split([text])).toEqual(expected);
  expect(split([...text])).toEqual(expected); // one character at a time
  expect(split(text.split(' ').map((word, i) => (i ? ` ${word}` : word)))).toEqual(expected);
});

it('waits for what follows a full stop: a number or an abbreviation goes on', () => {
  const splitter = new SentenceSplitter();
  expect(splitter.push('O total é 12.')).toEqual([]);
  expect(splitter.push('50 reais. Ok')).toEqual(['O total é 12.50 reais.']);
  expect(splitter.flush()).toBe('Ok');
});

it('keeps closing quotes with their sentence, and breaks at new lines', () => {
  expect(split(['Ele disse "sim, vamos." Depois', ' saiu de casa.\nFim'])).toEqual(['Ele disse "sim, vamos."', 'Depois saiu de casa.', 'Fim']);
});

it('cuts a run-on sentence at a comma or a space, never mid-word', () => {
  const long = Array.from({ length: 60 }, (_, i) => `palavra${i}`).join(' ');
  const sentences = split([long]);
  expect(sentences.length).toBeGreaterThan(1);
  for (const sentence of sentences) expect(sentence.length).toBeLessThanOrEqual(200);
  expect(sentences.join(' ')).toBe(long);
});

it('ends Chinese and Japanese sentences at their full-width stops, which need no space', () => {
  expect(split(['您好！我来帮您查询一下您的订单现在的配送状态。请稍', '等一下，马上就好，谢谢您的耐心等待。好'])).toEqual([
    '您好！我来帮您查询一下您的订单现在的配送状态。',
    '请稍等一下，马上就好，谢谢您的耐心等待。',
    '好',
  ]);
});

it('gives TTS no chunk under 20 characters but the last: short sentences go with the next', () => {
  expect(split(['Olá! Tudo bem? Sou a Ana, da Vozgate. Sim.'])).toEqual(['Olá! Tudo bem? Sou a Ana, da Vozgate.', 'Sim.']);
  expect(split([...'Ok. Certo. Vou verificar o seu pedido agora. Um momento.'])).toEqual(['Ok. Certo. Vou verificar o seu pedido agora.', 'Um momento.']);
  expect(split(['Oi!'])).toEqual(['Oi!']);
});

it('does not end a sentence at an abbreviation, in any of the languages', () => {
  expect(split(['O Sr. Silva e a Dra. Ana moram na Av. Paulista. Certo?'])).toEqual(['O Sr. Silva e a Dra. Ana moram na Av. Paulista.', 'Certo?']);
  expect(split(['Mr. Smith called Dr. Jones, e.g. about the bill. Fine.'])).toEqual(['Mr. Smith called Dr. Jones, e.g. about the bill.', 'Fine.']);
  expect(split(['La Sra. López vive en la Av. Reforma, Ud. sabe. Bien.'])).toEqual(['La Sra. López vive en la Av. Reforma, Ud. sabe.', 'Bien.']);
  expect(split(['Sie zahlen z. B. mit Karte Nr. 5 bei Dr. Müller. Gut.'])).toEqual(['Sie zahlen z. B. mit Karte Nr. 5 bei Dr. Müller.', 'Gut.']);
  expect(split([...'Sie zahlen z. B. mit Karte Nr. 5 bei Dr. Müller. Gut.'])).toEqual(['Sie zahlen z. B. mit Karte Nr. 5 bei Dr. Müller.', 'Gut.']);
});

it('does not end a sentence at a list number at the start of a line, nor at the day of a German date', () => {
  expect(split(['Siga os passos:\n1. Abra o aplicativo do banco\n2. Toque em Pagar'])).toEqual([
    'Siga os passos:\n1. Abra o aplicativo do banco',
    '2. Toque em Pagar',
  ]);
  expect(split(['Ihr Termin ist am 15.', ' März um zehn Uhr. Passt das?'])).toEqual(['Ihr Termin ist am 15. März um zehn Uhr.', 'Passt das?']);
  // The word after the number decides: the splitter waits for it.
  const splitter = new SentenceSplitter();
  expect(splitter.push('Seu pedido é o número 12. ')).toEqual([]);
  expect(splitter.push('Posso ajudar em mais alguma coisa? ')).toEqual(['Seu pedido é o número 12.', 'Posso ajudar em mais alguma coisa?']);
  expect(split(['Seu pedido é o número 12. 50 pessoas já compraram hoje. Ok'])).toEqual(['Seu pedido é o número 12.', '50 pessoas já compraram hoje.', 'Ok']);
});
