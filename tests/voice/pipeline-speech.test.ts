import { advance, virtualCall } from '../helpers/virtual-call';

/**
 * What the pipeline engine gives TTS (speech-text.ts, wired in reply.ts): the model's text said
 * as a person would say it, while the transcript and the model's context keep it as written.
 * On virtual time (tests/helpers/virtual-call.ts), in the call's language (pt).
 */
beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

const customerFirst = { who_speaks_first: 'Customer' as const };

it('speaks prices, identifiers and markdown in words, and keeps the model’s text in the transcript and its context', async () => {
  const call = virtualCall(customerFirst);
  const answer = 'São **12x de R$ 99,90** 🎉. Confirma o CPF 123.456.789-09?';
  call.llm.reply({ text: answer }, { text: 'Perfeito, obrigado.' });
  await call.caller.says('Quanto custa o plano', 1000);
  await advance(15_000);
  expect(call.spoken.join(' ')).toBe(
    'São doze vezes de noventa e nove reais e noventa centavos. Confirma o CPF um dois três, quatro cinco seis, sete oito nove, zero nove?',
  );
  await call.caller.says('Sim', 600);
  await advance(5000);
  expect(call.turns()).toEqual(['customer: Quanto custa o plano', `assistant: ${answer}`, 'customer: Sim', 'assistant: Perfeito, obrigado.']);
  expect(call.llm.requests[1].messages.find((m) => m.role === 'assistant')).toMatchObject({ content: answer });
  await call.end();
});

it('says the opening in words too', async () => {
  const call = virtualCall({ initial_message: 'Olá! Sou a Ana, da **Vozgate**, com uma oferta de 2,5% 😀' });
  await advance(10_000);
  expect(call.spoken).toEqual(['Olá! Sou a Ana, da Vozgate, com uma oferta de dois vírgula cinco por cento']);
  expect(call.turns()[0]).toBe('assistant: Olá! Sou a Ana, da **Vozgate**, com uma oferta de 2,5% 😀');
  await call.end();
});

it('gives TTS nothing for an answer of emoji only, and the reply still ends', async () => {
  const call = virtualCall(customerFirst);
  call.llm.reply({ text: '👍' }, { text: 'Pois não, diga.' });
  await call.caller.says('Obrigado', 800);
  await advance(3000);
  expect(call.spoken).toEqual([]);
  await call.caller.says('Outra coisa', 800);
  await advance(10_000);
  expect(call.spoken).toEqual(['Pois não, diga.']);
  expect(call.turns()).toEqual(['customer: Obrigado', 'assistant: 👍', 'customer: Outra coisa', 'assistant: Pois não, diga.']);
  await call.end();
});
