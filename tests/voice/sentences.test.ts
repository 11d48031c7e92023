import { SentenceSplitter } from '../../src/voice/engines/pipeline/speech-text';

/** Feeds text in the pieces a model streams it, and collects the sentences. */
function split(pieces: string[]): string[] {
  const splitter = new SentenceSplitter();
  const sentences = pieces.flatMap((piece) => splitter.push(piece));
  const rest = splitter.flush();
  return rest ? [...sentences, rest] : sentences;
}

it('cuts streamed text at the ends of sentences, whatever the pieces', () => {
  const text = 'Olá, Marina! Seu pedido 123 foi enviado. Posso ajudar em algo mais?';
  const expected = ['Olá, Marina!', 'Seu pedido 123 foi enviado.', 'Posso ajudar em algo mais?'];
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
  expect(split(['Ele disse "sim." Depois', ' saiu.\nFim'])).toEqual(['Ele disse "sim."', 'Depois saiu.', 'Fim']);
});

it('cuts a run-on sentence at a comma or a space, never mid-word', () => {
  const long = Array.from({ length: 60 }, (_, i) => `palavra${i}`).join(' ');
  const sentences = split([long]);
  expect(sentences.length).toBeGreaterThan(1);
  for (const sentence of sentences) expect(sentence.length).toBeLessThanOrEqual(200);
  expect(sentences.join(' ')).toBe(long);
});

it('ends Chinese and Japanese sentences at their full-width stops, which need no space', () => {
  expect(split(['您好！我来查', '一下。请稍等'])).toEqual(['您好！', '我来查一下。', '请稍等']);
  expect(split(['はい、確認します。少々', 'お待ちください。'])).toEqual(['はい、確認します。', '少々お待ちください。']);
});
