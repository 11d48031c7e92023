import { decodeDtmf } from '../helpers/dtmf';
import { advance, answerTool, MS_PER_CHAR, toolRunning, virtualCall } from '../helpers/virtual-call';

/**
 * The pipeline engine's turn-taking and replies on virtual time (tests/helpers/virtual-call.ts):
 * the real engine with scripted VAD, STT, model, TTS, transport and tools, on jest's fake
 * timers. Each race below takes seconds on a real call and milliseconds here, and happens at the
 * same instant every run. The end-to-end calls on real sockets are pipeline-engine.test.ts.
 *
 * Defaults of the assistant (ASSISTANT_DEFAULTS): endpoint_sensitivity 2.5 (700 ms of silence
 * ends a turn), interrupt_sensitivity 2.5 (575 ms of speech interrupts), interruptions allowed.
 */
jest.mock('../../src/modules/calls/call.tools', () => ({
  runTool: (_deps: unknown, _call: unknown, tool: { name: string }) => require('../helpers/virtual-call').toolRun(tool.name),
}));

beforeEach(() => jest.useFakeTimers());
afterEach(() => {
  // A test that failed midway leaves its call's timers: none may run into the next test.
  jest.clearAllTimers();
  jest.useRealTimers();
});

const customerFirst = { who_speaks_first: 'Customer' as const };
/** How long TTS audio of a text lasts. */
const audioMs = (text: string) => text.length * MS_PER_CHAR;

it('answers a caller’s turn once the silence after it ends it, and records both turns', async () => {
  const call = virtualCall(customerFirst);
  call.llm.reply({ text: 'Claro, posso ajudar.' });
  await call.caller.says('Quero saber do meu pedido.', 1200);
  await advance(700 + 300 + 400 + audioMs('Claro, posso ajudar.') + 200);
  expect(call.turns()).toEqual(['customer: Quero saber do meu pedido.', 'assistant: Claro, posso ajudar.']);
  expect(call.llm.requests[0].messages.at(-1)).toEqual({ role: 'user', content: 'Quero saber do meu pedido.' });
  await call.end();
});

describe('a barge-in', () => {
  const answer = 'Temos três planos: o básico, o intermediário e o completo, cada um com um preço.';

  it('before the model’s first word: the request is dropped, nothing is said, and the caller’s new words are answered', async () => {
    const call = virtualCall(customerFirst);
    call.llm.reply({ text: answer, firstTokenMs: 3000 }, { text: 'Pois não.' });
    await call.caller.says('Quais são os planos?', 1000);
    await advance(1100); // the turn is over, the model thinks
    expect(call.llm.requests).toHaveLength(1);
    await call.caller.says('Espera, outra coisa.', 800);
    await advance(3000);
    expect(call.spoken).not.toContain(answer);
    expect(call.turns()).toEqual(['customer: Quais são os planos?', 'customer: Espera, outra coisa.', 'assistant: Pois não.']);
    await call.end();
  });

  it('while the voice is being made: nothing is said of the answer, and its text leaves the model’s context', async () => {
    const call = virtualCall(customerFirst, { ttsFirstByteMs: 1500 });
    call.llm.reply({ text: answer, firstTokenMs: 100 }, { text: 'Pois não.' });
    await call.caller.says('Quais são os planos?', 1000);
    await advance(1300); // the model wrote, TTS has no audio yet
    expect(call.spoken.length).toBeGreaterThan(0);
    expect(call.media.sentMs).toBe(0);
    await call.caller.says('Espera, outra coisa.', 800);
    await advance(4000);
    expect(call.turns()).toEqual(['customer: Quais são os planos?', 'customer: Espera, outra coisa.', 'assistant: Pois não.']);
    // The model hears only what the caller heard: no word of the answer it wrote.
    expect(call.llm.requests[1].messages.filter((m) => m.role === 'assistant')).toEqual([]);
    await call.end();
  });

  it('while the answer plays: the speaker stops (clear), and the assistant’s turn is cut to what the caller heard', async () => {
    const call = virtualCall(customerFirst);
    call.llm.reply({ text: answer }, { text: 'Pois não.' });
    await call.caller.says('Quais são os planos?', 1000);
    await advance(1000 + 1500); // about 1.5 s of the answer heard
    expect(call.media.sentMs).toBeGreaterThan(1000);
    await call.caller.says('Espera.', 800);
    expect(call.media.clears).toBe(1);
    await advance(3000);
    const [, cut] = call.record.turns.filter((turn) => turn.speaker !== 'system');
    expect(cut.speaker).toBe('assistant');
    expect(answer.startsWith(cut.text)).toBe(true);
    expect(cut.text.length).toBeGreaterThan(10);
    expect(cut.text.length).toBeLessThan(answer.length - 20);
    // The model's context holds the same cut answer.
    expect(call.llm.requests[1].messages.find((m) => m.role === 'assistant')).toMatchObject({ content: cut.text });
    await call.end();
  });

  it('while a tool runs: the model hears the caller spoke first, and the tool’s real result once it answers (never asked twice)', async () => {
    const call = virtualCall(customerFirst, { tools: ['book_visit'] });
    call.llm.reply({ text: 'Vou marcar.', toolCalls: [{ name: 'book_visit', arguments: '{}' }] }, { text: 'Pois não.' }, { text: 'Está marcado.' });
    await call.caller.says('Marca para terça.', 1000);
    await advance(1000 + audioMs('Vou marcar.') + 300);
    expect(toolRunning('book_visit')).toBe(true);
    await call.caller.says('Alô?', 700);
    await advance(2000);
    const second = call.llm.requests[1].messages;
    expect(second.find((m) => m.role === 'tool')).toMatchObject({ content: '{"error":"the caller spoke before the tool answered"}' });
    answerTool('book_visit', '{"booked":true}');
    await advance(10);
    await call.caller.says('E então?', 700);
    await advance(2000);
    const third = call.llm.requests[2].messages;
    expect(third.filter((m) => m.role === 'tool')).toEqual([{ role: 'tool', tool_call_id: expect.any(String), content: JSON.stringify({ status: 200, response: '{"booked":true}' }) }]);
    expect(call.record.toolCalls).toHaveLength(1);
    await call.end();
  });

  it('during the filler: the filler stops, the answer never plays', async () => {
    const call = virtualCall({ ...customerFirst, filler_audios: true });
    call.llm.reply({ text: 'Achei o seu pedido.', firstTokenMs: 4000 }, { text: 'Pois não.' });
    await call.caller.says('Cadê meu pedido?', 1000);
    await advance(1000 + 1200 + 200); // the filler plays
    expect(call.spoken).toContain('Um momento.');
    await call.caller.says('Deixa pra lá.', 800);
    await advance(5000);
    expect(call.spoken).not.toContain('Achei o seu pedido.');
    expect(call.turns()).toEqual(['customer: Cadê meu pedido?', 'customer: Deixa pra lá.', 'assistant: Pois não.']);
    await call.end();
  });
});

describe('the end of a call', () => {
  it('hangs up once the goodbye has been heard to its end', async () => {
    const call = virtualCall(customerFirst);
    const goodbye = 'Obrigado pela ligação, até logo!';
    call.llm.reply({ text: goodbye, toolCalls: [{ name: 'endCall' }] });
    await call.caller.says('Era só isso.', 900);
    await advance(1100);
    expect(call.record.hungUp).toBeNull();
    await advance(audioMs(goodbye));
    expect(call.record.hungUp).toBe('end-call-tool');
    expect(call.turns().at(-1)).toBe(`assistant: ${goodbye}`);
    await call.end();
  });

  it('a goodbye cut off by the caller hangs up at once, its turn cut to what was heard', async () => {
    const call = virtualCall(customerFirst);
    const goodbye = 'Obrigado pela ligação, tenha um ótimo dia e até a próxima vez!';
    call.llm.reply({ text: goodbye, toolCalls: [{ name: 'endCall' }] });
    await call.caller.says('Era só isso.', 900);
    await advance(1100 + 800);
    expect(call.record.hungUp).toBeNull();
    await call.caller.says('Espera, mais uma coisa.', 700);
    expect(call.record.hungUp).toBe('end-call-tool');
    const said = call.record.turns.filter((turn) => turn.speaker === 'assistant').at(-1)!.text;
    expect(goodbye.startsWith(said)).toBe(true);
    expect(said.length).toBeLessThan(goodbye.length);
    await call.end();
  });
});

describe('a transfer (transfer_call)', () => {
  const sales = { number: '+551130030000', description: 'Vendas' };
  const transferring = { ...customerFirst, transfer_numbers: [sales], transfer_message: 'Um momento, vou transferir sua ligação.' };
  const asked = (call: ReturnType<typeof virtualCall>) => call.llm.requests[0].tools?.find((tool) => tool.name === 'transfer_call');

  it('says the transfer message as written once the model transfers, and hands the call over when it has been heard', async () => {
    const call = virtualCall(transferring);
    call.llm.reply({ toolCalls: [{ name: 'transfer_call', arguments: JSON.stringify({ number: sales.number }) }] });
    await call.caller.says('Quero falar com um atendente.', 1000);
    await advance(1100);
    expect(asked(call)?.parameters).toMatchObject({ properties: { number: { enum: [sales.number] } } });
    expect(call.record.transfers).toEqual([sales.number]);
    await advance(600);
    expect(call.spoken).toContain(transferring.transfer_message);
    expect(call.record.hungUp).toBeNull(); // not before it is heard
    await advance(audioMs(transferring.transfer_message) + 300);
    expect(call.record.hungUp).toBe('transferred');
    expect(call.llm.requests).toHaveLength(1); // the model is not asked again
    expect(call.turns().at(-1)).toBe(`assistant: ${transferring.transfer_message}`);
    await call.end();
  });

  it('without a transfer message, the model says it in its own words when its answer had none', async () => {
    const call = virtualCall({ ...transferring, transfer_message: null });
    call.llm.reply({ toolCalls: [{ name: 'transfer_call', arguments: JSON.stringify({ number: sales.number }) }] }, { text: 'Claro, vou te transferir agora.' });
    await call.caller.says('Quero falar com um atendente.', 1000);
    await advance(1100 + 1200);
    expect(call.llm.requests).toHaveLength(2);
    expect(call.llm.requests[1].tools ?? []).toEqual([]);
    expect(JSON.stringify(call.llm.requests[1].messages)).toContain('transferring the call');
    await advance(audioMs('Claro, vou te transferir agora.') + 300);
    expect(call.record.hungUp).toBe('transferred');
    await call.end();
  });

  it('a refused number (the do-not-call list) is no transfer: the model hears why and the call goes on', async () => {
    const call = virtualCall(transferring, { transferRefusal: 'do-not-call' });
    call.llm.reply({ toolCalls: [{ name: 'transfer_call', arguments: JSON.stringify({ number: sales.number }) }] }, { text: 'Não consigo transferir agora.' });
    await call.caller.says('Quero falar com um atendente.', 1000);
    await advance(1100 + 1200 + audioMs('Não consigo transferir agora.') + 300);
    expect(JSON.stringify(call.llm.requests[1].messages)).toContain('do-not-call list');
    expect(call.spoken).not.toContain(transferring.transfer_message);
    expect(call.record.hungUp).toBeNull();
    await call.end();
  });

  it('a number that is not a destination is refused before anything is reserved', async () => {
    const call = virtualCall(transferring);
    call.llm.reply({ toolCalls: [{ name: 'transfer_call', arguments: JSON.stringify({ number: '+5511999990000' }) }] }, { text: 'Esse número não está disponível.' });
    await call.caller.says('Me transfere para o 99999-0000.', 1000);
    await advance(1100 + 1200);
    expect(call.record.transfers).toEqual([]);
    expect(JSON.stringify(call.llm.requests[1].messages)).toContain('not one of the transfer destinations');
    await call.end();
  });

  it('when the provider refuses the transfer, the assistant says so and the call goes on', async () => {
    const call = virtualCall(transferring, { transferFails: true });
    call.llm.reply({ toolCalls: [{ name: 'transfer_call', arguments: JSON.stringify({ number: sales.number }) }] }, { text: 'Não foi possível transferir agora.' });
    await call.caller.says('Quero falar com um atendente.', 1000);
    await advance(1100 + 600 + audioMs(transferring.transfer_message) + 300 + 1200);
    expect(call.llm.requests).toHaveLength(2);
    expect(JSON.stringify(call.llm.requests[1].messages)).toContain('could not be transferred');
    await advance(audioMs('Não foi possível transferir agora.') + 300);
    expect(call.record.hungUp).toBeNull();
    expect(call.turns().at(-1)).toBe('assistant: Não foi possível transferir agora.');
    await call.end();
  });

  it('is not offered on a web call, nor to an assistant without transfer numbers', async () => {
    for (const [settings, options] of [
      [transferring, { phoneLine: false }],
      [{ ...customerFirst }, {}],
    ] as const) {
      const call = virtualCall(settings, options);
      call.llm.reply({ text: 'Pois não.' });
      await call.caller.says('Olá.', 600);
      await advance(1100);
      expect(asked(call)).toBeUndefined();
      await call.end();
    }
  });
});

describe('a vendor that fails', () => {
  it.each([['AI assistant'], ['Customer']] as const)('STT refused at the start (%s speaks first): the apology is heard to its end, then the call is hung up', async (first) => {
    const call = virtualCall({ who_speaks_first: first }, { sttRefusesAfterMs: 30 });
    await advance(20_000);
    expect(call.record.hungUp).toBe('stt-failed');
    const apology = call.spoken.find((text) => text.startsWith('Desculpe'))!;
    expect(apology).toBeDefined();
    // Hung up once the apology's audio was sent and played (its marks came back), not before.
    expect(call.media.sentMs).toBeGreaterThanOrEqual(audioMs(apology));
    expect(call.record.hungUpAt! - call.startedAt).toBeGreaterThanOrEqual(30 + audioMs(apology));
    expect(call.record.hungUpAt! - call.startedAt).toBeLessThan(30 + audioMs(apology) + 1000);
    await call.end();
  });
});

describe('a VAD that stops answering (its worker’s timeout), or answers late', () => {
  const answer = 'Claro, posso ajudar.';

  it('the STT’s end of turn that came while the VAD was late ends the turn once the VAD is given up, not when the caller speaks again', async () => {
    // The VAD's answers stop before the speech ends: it never hears the silence after it.
    const call = virtualCall({ ...customerFirst, re_engagement_interval: 5, max_silence_duration: 5 }, { vadStallsAtMs: 1100 });
    call.llm.reply({ text: answer });
    await call.caller.says('Quero saber do meu pedido.', 1200); // its final, which says the turn is over, at 1.5 s
    await advance(800);
    expect(call.llm.requests).toHaveLength(0); // the VAD may still answer: the turn is its to end
    await advance(200); // the first frame it did not answer fails at 2.1 s
    expect(call.llm.requests).toHaveLength(1);
    expect(call.llm.requests[0].messages.at(-1)).toEqual({ role: 'user', content: 'Quero saber do meu pedido.' });
    await advance(400 + audioMs(answer) + 300);
    expect(call.turns()).toEqual(['customer: Quero saber do meu pedido.', `assistant: ${answer}`]);
    // The caller is not left speaking by the VAD's last word: the silence clock runs after the answer.
    await advance(5000 + 300);
    expect(call.llm.requests).toHaveLength(2); // the re-engagement
    expect(call.record.hungUp).toBeNull();
    await call.end();
  });

  it('a reply paused by a cough the VAD heard before it stopped answering speaks again 2 s after the VAD is given up', async () => {
    const opening = 'Olá, aqui é a Ana, da loja. Tenho uma oferta especial para você hoje. O frete é grátis até domingo.';
    // The cough runs from 2 s to 2.7 s: it pauses the reply at 2.575 s, and the VAD's answers stop at 2.6 s.
    const call = virtualCall({ initial_message: opening }, { vadStallsAtMs: 2600 });
    await advance(2000);
    const clearsBefore = call.media.clears;
    const sentBefore = call.media.sentMs;
    await call.caller.noise(700);
    expect(call.media.clears).toBe(clearsBefore + 1);
    await advance(2700); // the VAD is given up at 3.6 s, and no word comes
    expect(call.media.sentMs).toBeLessThan(sentBefore + 800); // silent while paused
    await advance(1500); // 2 s after the VAD was given up, at 5.6 s, it speaks again
    expect(call.media.sentMs).toBeGreaterThan(sentBefore + 1500);
    await advance(8000);
    expect(call.turns()).toEqual([`assistant: ${opening}`]);
    await call.end();
  });

  it('frames it skips (late): the STT’s end of turn ends the turn meanwhile; once they come in time, its silence does again', async () => {
    const call = virtualCall(customerFirst, { vadLate: { fromMs: 1000, untilMs: 3000 } });
    call.llm.reply({ text: answer }, { text: 'Até logo.' });
    await call.caller.says('Quero saber do meu pedido.', 1200); // its final, which says the turn is over, at 1.5 s
    await advance(400);
    expect(call.llm.requests).toHaveLength(1); // the VAD, skipping, heard no silence yet
    await advance(3000 + audioMs(answer));
    // A second after its last late frame, a turn the STT never says is over ends on the VAD's silence.
    await call.caller.says('Era só isso', 800, { endsTurn: false });
    await advance(700 + 500 + 100); // the silence, 0.5 s more (no sentence's end), the Finalize's answer
    expect(call.llm.requests).toHaveLength(2);
    expect(call.llm.requests[1].messages.at(-1)).toEqual({ role: 'user', content: 'Era só isso' });
    await call.end();
  });

  it('the next turns end at the STT’s end of turn', async () => {
    const call = virtualCall(customerFirst, { vadStallsAtMs: 500 });
    call.llm.reply({ text: answer }, { text: 'Até logo.' });
    await call.caller.says('Quero saber do meu pedido.', 1200);
    await advance(2000 + audioMs(answer));
    await call.caller.says('Era só isso.', 800);
    await advance(300 + 200 + 100);
    expect(call.llm.requests).toHaveLength(2);
    expect(call.llm.requests[1].messages.at(-1)).toEqual({ role: 'user', content: 'Era só isso.' });
    await call.end();
  });
});

describe('the caller’s turn', () => {
  it('a final that comes after its turn went on the interim words: the words the interim had not begin the next turn', async () => {
    const call = virtualCall(customerFirst);
    call.llm.reply({ text: 'Um momento.' }, { text: 'Vou transferir.' });
    // The STT ignores the engine's Finalize; its final comes 3.5 s after the speech (past the 1.5 s wait).
    await call.caller.says('Quero falar com o gerente.', 1000, { ignoresFinalize: true, finalAfterMs: 3500 });
    // The silence (and 0.5 s more: the interim words end without punctuation), then the 1.5 s wait for the final.
    await advance(700 + 500 + 1500 + 100);
    expect(call.turns()).toEqual(['customer: Quero falar com']); // the interim words, at the 1.5 s bound
    await advance(2000); // the late final comes, and the answer plays
    await call.caller.says('por favor.', 600);
    await advance(1500);
    expect(call.turns().filter((turn) => turn.startsWith('customer'))).toEqual(['customer: Quero falar com', 'customer: o gerente. por favor.']);
    await call.end();
  });

  it('endpoint_type ai: a turn the STT never says is over ends after 3 s of silence, with the words Finalize gives', async () => {
    const call = virtualCall({ ...customerFirst, endpoint_type: 'ai' });
    call.llm.reply({ text: 'Entendi.' });
    await call.caller.says('Meu CPF é um dois três', 1500, { endsTurn: false, finalAfterMs: 200 });
    await advance(2500);
    expect(call.turns()).toEqual([]); // the STT has not said the turn is over: the caller may go on
    expect(call.finalizes).toEqual([]);
    await advance(600); // 3 s of silence after the words
    expect(call.finalizes).toHaveLength(1);
    await advance(100);
    expect(call.turns()).toEqual(['customer: Meu CPF é um dois três']);
    await call.end();
  });

  it('speech over the assistant that pauses (coughs) is counted afresh after each pause: it never adds up to an interruption', async () => {
    const call = virtualCall({ initial_message: 'Olá! Aqui é a Ana, da loja. Tenho uma oferta especial para você hoje, com frete grátis.' });
    await advance(500); // the opening plays
    for (let cough = 0; cough < 3; cough++) {
      await call.caller.noise(400); // under the 575 ms that interrupt
      await advance(300);
    }
    expect(call.media.clears).toBe(0);
    // 600 ms of speech without a pause does interrupt.
    await call.caller.noise(640);
    expect(call.media.clears).toBe(1);
    await call.end();
  });
});

describe('an outbound call’s opening', () => {
  const opening = 'Olá Marina, aqui é a Ana da Loja Centro.';

  it('a callee’s “Alô?” whose final comes after the verdict (the screening heard them stop first) is the greeting the opening answers: not cut by it, not answered by the model', async () => {
    const call = virtualCall({ initial_message: opening }, { outbound: true });
    await advance(300);
    // The STT keeps its final past the turn's end and past the screening's 800 ms of silence: the verdict, and the opening, come first.
    await call.caller.says('Alô?', 500, { ignoresFinalize: true, finalAfterMs: 1000 });
    await advance(1000);
    expect(call.record.answeredBy).toMatchObject({ answered_by: 'human', source: 'timing' });
    await advance(100 + audioMs(opening) + 500);
    expect(call.spoken).toEqual([opening]);
    expect(call.media.clears).toBe(0);
    expect(call.llm.requests).toEqual([]);
    expect(call.turns()).toEqual(['customer: Alô?', `assistant: ${opening}`]);
    // The model's context holds them in the order they were said.
    call.llm.reply({ text: 'É sobre o seu pedido.' });
    await call.caller.says('Pois não?', 600);
    await advance(1500);
    expect(call.llm.requests[0].messages.slice(1)).toEqual([
      { role: 'user', content: 'Alô?' },
      { role: 'assistant', content: opening },
      { role: 'user', content: 'Pois não?' },
    ]);
    await call.end();
  });

  it('the callee’s words said over the opening still interrupt it', async () => {
    const call = virtualCall({ initial_message: opening }, { outbound: true });
    await advance(300);
    await call.caller.says('Alô?', 500);
    await advance(1000); // the turn, then the verdict: the opening plays
    expect(call.spoken).toEqual([opening]);
    call.llm.reply({ text: 'Claro, eu espero.' });
    await call.caller.says('Espera um pouco, por favor.', 800);
    expect(call.media.clears).toBe(1);
    await advance(2000);
    expect(call.turns().slice(-2)).toEqual(['customer: Espera um pouco, por favor.', 'assistant: Claro, eu espero.']);
    await call.end();
  });
});

describe('endpointing', () => {
  it.each([['vad'], ['ai']] as const)('a CPF read in three groups is one turn (%s): the wait grows after digits', async (endpoint_type) => {
    const call = virtualCall({ ...customerFirst, endpoint_type });
    call.llm.reply({ text: 'Obrigado.' });
    // Pauses of 1.2 s between the groups: longer than the 700 ms that end a turn, shorter than 700 + 1,200 after digits.
    await call.caller.says('Meu CPF é 123.456', 1200, { finalAfterMs: 150 });
    await advance(1200);
    await call.caller.says('789', 700, { finalAfterMs: 150 });
    await advance(1200);
    await call.caller.says('-09.', 600, { finalAfterMs: 150 });
    await advance(3000);
    expect(call.turns().filter((turn) => turn.startsWith('customer'))).toEqual(['customer: Meu CPF é 123.456 789 -09.']);
    await call.end();
  });

  it('an answer that ends in a sentence is taken after the configured silence; one that trails off waits 0.5 s more', async () => {
    const call = virtualCall(customerFirst);
    call.llm.reply({ text: 'Certo.' }, { text: 'Certo.' });
    await call.caller.says('Sim, pode ser.', 800);
    await advance(700 + 150); // the silence, and the Finalize's answer
    expect(call.turns()).toEqual(['customer: Sim, pode ser.']);
    await advance(3000);
    await call.caller.says('Eu queria saber', 800);
    await advance(700 + 150);
    expect(call.turns().filter((turn) => turn.startsWith('customer'))).toHaveLength(1);
    await advance(500);
    expect(call.turns().filter((turn) => turn.startsWith('customer'))).toEqual(['customer: Sim, pode ser.', 'customer: Eu queria saber']);
    await call.end();
  });

  it('at the most patient endpoint_sensitivity, digits wait 1.2 s more than its 1.2 s (within the 3 s cap)', async () => {
    const call = virtualCall({ ...customerFirst, endpoint_sensitivity: 0 });
    call.llm.reply({ text: 'Certo.' });
    await call.caller.says('O número é 11 98765 4321', 1500, { ignoresFinalize: false, finalAfterMs: 150 });
    await advance(2300);
    expect(call.turns()).toEqual([]);
    await advance(200 + 100); // 2.4 s of silence then the Finalize's answer
    expect(call.turns()).toEqual(['customer: O número é 11 98765 4321']);
    await call.end();
  });
});

describe('speech over the assistant that is no interruption', () => {
  const opening = 'Olá, aqui é a Ana, da loja. Tenho uma oferta especial para você hoje. O frete é grátis até domingo.';

  it('a cough pauses the reply, which resumes from the sentence that was cut 2 s after it; the noise is no turn and the transcript holds the whole reply', async () => {
    const call = virtualCall({ initial_message: opening });
    await advance(2000); // into the second sentence
    const clearsBefore = call.media.clears;
    const sentBefore = call.media.sentMs;
    await call.caller.noise(700); // long enough to pause it (575 ms), and no word
    expect(call.media.clears).toBe(clearsBefore + 1);
    await advance(1500);
    expect(call.media.sentMs).toBeLessThan(sentBefore + 800); // silent while paused
    await advance(1000); // 2 s after the cough: it speaks again, from the start of the sentence it cut
    expect(call.spoken.filter((text) => text === 'Tenho uma oferta especial para você hoje.')).toHaveLength(2);
    expect(call.spoken).not.toContain('Olá, aqui é a Ana, da loja.'.repeat(2));
    await advance(8000);
    expect(call.turns()).toEqual([`assistant: ${opening}`]);
    expect(call.llm.requests).toHaveLength(0); // the noise was no turn
    await call.end();
  });

  it('“aham” twice across a pause never interrupts: kept in the transcript, never a turn of the model', async () => {
    const call = virtualCall({ initial_message: opening });
    await advance(1500);
    await call.caller.says('Aham.', 650);
    await advance(900);
    await call.caller.says('Sim.', 650);
    await advance(9000);
    const turns = call.turns();
    expect(turns.filter((turn) => turn.startsWith('customer'))).toEqual(['customer: Aham.', 'customer: Sim.']);
    expect(turns.filter((turn) => turn.startsWith('assistant'))).toEqual([`assistant: ${opening}`]);
    expect(call.llm.requests).toHaveLength(0);
    await call.end();
  });

  it('an acknowledgement that paused the reply lets it speak again as soon as its final words show it, not after the 2 s', async () => {
    const call = virtualCall({ initial_message: opening });
    await advance(2000); // into the second sentence
    await call.caller.says('Entendi.', 650); // long enough to pause it (575 ms)
    const paused = call.media.sentMs;
    await advance(300 + 500); // its final 300 ms after the speech, then the sentence's audio (100 ms to the first byte)
    expect(call.media.sentMs).toBeGreaterThan(paused + 200);
    expect(call.spoken.filter((text) => text === 'Tenho uma oferta especial para você hoje.')).toHaveLength(2);
    await advance(9000);
    expect(call.turns().filter((turn) => turn.startsWith('customer'))).toEqual(['customer: Entendi.']);
    expect(call.turns().filter((turn) => turn.startsWith('assistant'))).toEqual([`assistant: ${opening}`]);
    expect(call.llm.requests).toHaveLength(0);
    await call.end();
  });

  it('a word that comes after the pause cuts the reply to what the caller heard before it paused', async () => {
    const call = virtualCall({ initial_message: opening, interrupt_sensitivity: 5 }); // 150 ms pause it, the words come at 600 ms
    call.llm.reply({ text: 'Pois não.' });
    await advance(2500);
    await call.caller.says('Espera, por favor.', 1200);
    await advance(3000);
    const [cut] = call.turns();
    expect(cut.startsWith('assistant: Olá, aqui é a Ana, da loja. Tenho')).toBe(true);
    expect(opening.startsWith(cut.slice('assistant: '.length))).toBe(true);
    expect(call.turns().slice(1)).toEqual(['customer: Espera, por favor.', 'assistant: Pois não.']);
    await call.end();
  });

  it('a real barge-in over the paused reply cuts it, and the caller is answered', async () => {
    const call = virtualCall({ initial_message: opening });
    call.llm.reply({ text: 'Claro, pode falar.' });
    await advance(2000);
    await call.caller.says('Espera, eu queria outra coisa.', 1200);
    await advance(3000);
    const turns = call.turns();
    expect(turns[0].startsWith('assistant: Olá, aqui é a Ana')).toBe(true);
    expect(turns[0].length).toBeLessThan(`assistant: ${opening}`.length);
    expect(turns.slice(1)).toEqual(['customer: Espera, eu queria outra coisa.', 'assistant: Claro, pode falar.']);
    await call.end();
  });

  it.each([
    ['Não.', 300],
    ['Stop.', 400],
  ])('a one-word barge-in shorter than interrupt_sensitivity’s speech (%s, %i ms) still cuts the reply: a word is no sound', async (word, ms) => {
    const call = virtualCall({ initial_message: opening });
    call.llm.reply({ text: 'Pois não?' });
    await advance(2000);
    await call.caller.says(word, ms);
    await advance(1500);
    const turns = call.turns();
    expect(turns[0].startsWith('assistant: Olá, aqui é a Ana')).toBe(true);
    expect(turns[0].length).toBeLessThan(`assistant: ${opening}`.length);
    expect(turns.slice(1)).toEqual([`customer: ${word}`, 'assistant: Pois não?']);
    await call.end();
  });
});

describe('the assistant’s turn-taking settings', () => {
  const opening = 'Olá, aqui é a Ana, da loja. Tenho uma oferta especial para você hoje. O frete é grátis até domingo.';

  it('keyterms reach the STT with the call’s variables filled; one left empty, or said twice, is dropped', async () => {
    const call = virtualCall(
      { keyterms: ['Vozgate', 'pedido {{order}}', '{{missing}}', 'Loja {{ store }}', 'Loja Centro'], variables: { store: 'Centro' } },
      { variables: { order: 'A-1027' } },
    );
    expect(call.sttOptions().keyterms).toEqual(['Vozgate', 'pedido A-1027', 'Loja Centro']);
    await call.end();
  });

  it('backchannel_words replace the language’s: the assistant’s own word never interrupts, a default one now does', async () => {
    const own = virtualCall({ initial_message: opening, backchannel_words: ['beleza'] });
    await advance(1500);
    await own.caller.says('Beleza.', 650);
    await advance(9000);
    expect(own.turns().sort()).toEqual([`assistant: ${opening}`, 'customer: Beleza.']);
    expect(own.llm.requests).toHaveLength(0);
    await own.end();

    const notOwn = virtualCall({ initial_message: opening, backchannel_words: ['beleza'] });
    notOwn.llm.reply({ text: 'Pois não?' });
    await advance(1500);
    await notOwn.caller.says('Aham.', 650);
    await advance(5000);
    const turns = notOwn.turns();
    expect(turns[0].length).toBeLessThan(`assistant: ${opening}`.length); // cut
    expect(turns.slice(1)).toEqual(['customer: Aham.', 'assistant: Pois não?']);
    await notOwn.end();
  });

  it('false_interruption_timeout_ms 0: a cough cuts the reply, which is never said again; the noise is no turn', async () => {
    const call = virtualCall({ initial_message: opening, false_interruption_timeout_ms: 0 });
    await advance(2000); // into the second sentence
    await call.caller.noise(700);
    await advance(10_000);
    expect(call.spoken.filter((text) => text === 'Tenho uma oferta especial para você hoje.')).toHaveLength(1);
    const turns = call.turns();
    expect(turns).toHaveLength(1);
    expect(turns[0].startsWith('assistant: Olá, aqui é a Ana')).toBe(true);
    expect(turns[0].length).toBeLessThan(`assistant: ${opening}`.length);
    expect(call.llm.requests).toHaveLength(0);
    await call.end();
  });

  it('false_interruption_timeout_ms: the paused reply waits that long after the cough before it speaks again', async () => {
    const call = virtualCall({ initial_message: opening, false_interruption_timeout_ms: 5000 });
    await advance(2000);
    await call.caller.noise(700);
    const paused = call.media.sentMs;
    await advance(4500); // well past the default 2 s: still paused
    expect(call.media.sentMs).toBe(paused);
    await advance(2000);
    expect(call.media.sentMs).toBeGreaterThan(paused + 1000);
    await advance(8000);
    expect(call.turns()).toEqual([`assistant: ${opening}`]);
    await call.end();
  });
});

describe('fillers while tools run', () => {
  const phrase = 'Estou consultando a agenda.';

  it('a slow tool’s speak_during is said 1.2 s into its run, then every 4 s, 3 times at most (without filler_audios); the first tool that has one speaks', async () => {
    const call = virtualCall(customerFirst, { tools: ['log_visit', { name: 'book_visit', speak_during: phrase }] });
    call.llm.reply({ toolCalls: [{ name: 'log_visit' }, { name: 'book_visit' }] }, { text: 'Está marcado.' });
    await call.caller.says('Marca para terça.', 1000);
    await advance(1000); // the turn ended, the model asked for the tools (200 ms)
    expect(toolRunning('book_visit')).toBe(true);
    const said = () => call.spoken.filter((text) => text === phrase).length;
    await advance(1000);
    expect(said()).toBe(0);
    await advance(500); // 1.2 s into the run
    expect(said()).toBe(1);
    await advance(4000);
    expect(said()).toBe(2);
    await advance(4000);
    expect(said()).toBe(3);
    await advance(8000);
    expect(said()).toBe(3); // at most 3
    expect(call.spoken).not.toContain('Um momento.');
    answerTool('log_visit', '{}');
    answerTool('book_visit', '{"booked":true}');
    await advance(2000);
    // The filler is not part of the conversation.
    expect(call.turns()).toEqual(['customer: Marca para terça.', 'assistant: Está marcado.']);
    await call.end();
  });

  it('the generic filler (filler_audios) is repeated every 4 s while a tool runs, 3 times at most; none plays after the tool answers', async () => {
    const call = virtualCall({ ...customerFirst, filler_audios: true }, { tools: ['book_visit'] });
    call.llm.reply({ toolCalls: [{ name: 'book_visit' }] }, { text: 'Está marcado.', firstTokenMs: 3000 });
    await call.caller.says('Marca para terça.', 1000);
    await advance(1000);
    expect(toolRunning('book_visit')).toBe(true);
    const sent = call.media.sentMs;
    /** The filler's audio, sent in whole 20 ms frames. */
    const fillerMs = Math.ceil(audioMs('Um momento.') / 20) * 20;
    await advance(1500 + 4000 + 4000 + 8000);
    expect(call.media.sentMs - sent).toBe(3 * fillerMs);
    answerTool('book_visit', '{"booked":true}');
    await advance(2000); // the model is slow to answer (3 s), but tools are no longer running
    expect(call.media.sentMs - sent).toBe(3 * fillerMs);
    await advance(3000);
    expect(call.turns()).toEqual(['customer: Marca para terça.', 'assistant: Está marcado.']);
    await call.end();
  });

  it('a tool without speak_during and no filler_audios: silence while it runs', async () => {
    const call = virtualCall(customerFirst, { tools: ['book_visit'] });
    call.llm.reply({ toolCalls: [{ name: 'book_visit' }] }, { text: 'Está marcado.' });
    await call.caller.says('Marca para terça.', 1000);
    await advance(1000);
    const sent = call.media.sentMs;
    await advance(12_000);
    expect(call.media.sentMs).toBe(sent);
    answerTool('book_visit', '{}');
    await advance(2000);
    await call.end();
  });
});

describe('pronunciations', () => {
  it('the assistant’s pronunciations reach TTS, whole words; the transcript keeps what the model wrote', async () => {
    const call = virtualCall({ ...customerFirst, pronunciations: [{ word: 'Vozgate', say_as: 'vós gueite' }] });
    call.llm.reply({ text: 'Aqui é a Vozgate, em que posso ajudar?' });
    await call.caller.says('Alô, quem fala?', 900);
    await advance(4000);
    expect(call.spoken.join(' ')).toContain('vós gueite');
    expect(call.spoken.join(' ')).not.toContain('Vozgate');
    expect(call.turns().at(-1)).toBe('assistant: Aqui é a Vozgate, em que posso ajudar?');
    await call.end();
  });
});

describe('the keypad', () => {
  const keys = (call: ReturnType<typeof virtualCall>, pressed: string) => {
    for (const key of pressed) call.engine.digit(key);
  };
  const lastUserMessage = (call: ReturnType<typeof virtualCall>, request: number) =>
    call.llm.requests[request].messages.filter((message) => message.role === 'user').at(-1);

  it('gathers the caller’s keys into one turn once 3 s pass without a key, answered as the caller’s', async () => {
    const call = virtualCall(customerFirst);
    call.llm.reply({ text: 'Anotado.' });
    keys(call, '12');
    await advance(2000);
    keys(call, '3'); // the clock starts again
    await advance(2900);
    expect(call.llm.requests).toHaveLength(0);
    await advance(200);
    expect(lastUserMessage(call, 0)).toEqual({ role: 'user', content: '[keypad] 123' });
    await advance(400 + audioMs('Anotado.') + 300);
    expect(call.turns()).toEqual(['customer: [keypad] 123', 'assistant: Anotado.']);
    await call.end();
  });

  it('ends the entry on #, which is not part of it', async () => {
    const call = virtualCall(customerFirst);
    keys(call, '42#');
    await advance(10);
    expect(call.llm.requests).toHaveLength(1);
    expect(lastUserMessage(call, 0)).toEqual({ role: 'user', content: '[keypad] 42' });
    await advance(3500);
    expect(call.llm.requests).toHaveLength(1); // nothing more was gathered
    await call.end();
  });

  it('interrupts the assistant like speech: the answer stops, its turn is cut where it was heard, and the keys are answered', async () => {
    const call = virtualCall(customerFirst);
    const answer = 'Temos três planos: o básico, o intermediário e o completo, cada um com um preço.';
    call.llm.reply({ text: answer }, { text: 'Opção nove.' });
    await call.caller.says('Quais são os planos?', 1000);
    await advance(1000 + 1500); // about 1.5 s of the answer heard
    keys(call, '9#');
    expect(call.media.clears).toBe(1);
    await advance(400 + audioMs('Opção nove.') + 300);
    const turns = call.record.turns.filter((turn) => turn.speaker !== 'system');
    expect(turns.map((turn) => turn.speaker)).toEqual(['customer', 'assistant', 'customer', 'assistant']);
    expect(answer.startsWith(turns[1].text) && turns[1].text.length < answer.length).toBe(true);
    expect(turns[2].text).toBe('[keypad] 9');
    expect(lastUserMessage(call, 1)).toEqual({ role: 'user', content: '[keypad] 9' });
    // The model knows what the caller heard of its answer, not what it wrote.
    expect(call.llm.requests[1].messages.find((message) => message.role === 'assistant')?.content).toBe(turns[1].text);
    await call.end();
  });

  it('press_digits plays the keys’ DTMF pairs after what the assistant said, and tells the model once they were heard', async () => {
    const call = virtualCall(customerFirst);
    call.llm.reply({ text: 'Vou digitar.', toolCalls: [{ name: 'press_digits', arguments: '{"digits":"12#"}' }] }, { text: 'Pronto.' });
    await call.caller.says('Aperte um dois e jogo da velha.', 1000);
    await advance(1000 + 400 + audioMs('Vou digitar.') + 1500);
    const sent = call.media.frames;
    // TTS's scripted audio is a steady 1000: the first frame that is not is the tones'.
    const firstTone = sent.findIndex((frame) => frame.some((sample) => sample !== 1000 && sample !== 0));
    // The tones come after the whole sentence said before them.
    expect(sent.slice(0, firstTone).reduce((ms, frame) => ms + frame.length / 8, 0)).toBeGreaterThanOrEqual(audioMs('Vou digitar.'));
    const all = new Int16Array(sent.reduce((n, frame) => n + frame.length, 0));
    sent.reduce((at, frame) => (all.set(frame, at), at + frame.length), 0);
    expect(decodeDtmf(all, 8000)).toBe('12#');
    expect(call.llm.requests[1].messages.find((message) => message.role === 'tool')?.content).toBe('{"pressed":"12#"}');
    expect(call.turns()).toContain('assistant: [keypad] 12#');
    await call.end();
  });

  it('press_digits answers bad keys to the model as an error, and is offered on phone calls only', async () => {
    const call = virtualCall(customerFirst);
    call.llm.reply({ toolCalls: [{ name: 'press_digits', arguments: '{"digits":"1x"}' }] }, { text: 'Não consegui.' });
    await call.caller.says('Aperte.', 600);
    await advance(3000);
    expect(call.llm.requests[0].tools?.map((tool) => tool.name)).toContain('press_digits');
    expect(JSON.parse(String(call.llm.requests[1].messages.find((message) => message.role === 'tool')?.content))).toEqual({ error: expect.stringMatching(/digits/) });
    await call.end();

    const web = virtualCall(customerFirst, { phoneLine: false });
    await web.caller.says('Olá.', 600);
    await advance(2000);
    expect(web.llm.requests[0].tools?.map((tool) => tool.name)).not.toContain('press_digits');
    await web.end();
  });
});

describe('a knowledge base in prompt mode', () => {
  const chunk = 'Aos sábados a loja abre das 9h às 13h.';

  it('the caller’s turn is searched before the model is asked; its chunks are a note in that request only', async () => {
    const call = virtualCall(customerFirst, { knowledge: { searchMs: 200, contents: [chunk] } });
    call.llm.reply({ text: 'Abrimos até a uma.' }, { text: 'De nada!' });
    await call.caller.says('Que horas abrem no sábado?', 1000);
    await advance(700 + 150);
    expect(call.record.searches).toEqual([{ query: 'Que horas abrem no sábado?', mode: 'prompt' }]);
    expect(call.llm.requests).toHaveLength(0); // the search is still under way
    await advance(100 + 200);
    expect(call.llm.requests).toHaveLength(1);
    const messages = call.llm.requests[0].messages;
    expect(messages.at(-2)).toEqual({ role: 'user', content: 'Que horas abrem no sábado?' });
    expect(messages.at(-1)).toMatchObject({ role: 'system', content: expect.stringContaining(`[1] ${chunk}`) });
    await advance(300 + 400 + audioMs('Abrimos até a uma.') + 200);

    await call.caller.says('Obrigado.', 600);
    await advance(700 + 200 + 300);
    expect(call.record.searches.map((search) => search.query)).toEqual(['Que horas abrem no sábado?', 'Obrigado.']);
    const second = call.llm.requests[1].messages;
    expect(second.filter((message: any) => message.role === 'system' && message.content.includes(chunk))).toHaveLength(1); // its own note, not the first's
    expect(second.at(-1)?.role).toBe('system');
    expect(second.at(-2)).toEqual({ role: 'user', content: 'Obrigado.' });
    await call.end();
  });

  it('a barge-in while the base is searched: the model is never asked for the turn the caller went on from', async () => {
    const call = virtualCall(customerFirst, { knowledge: { searchMs: 2500, contents: [chunk] } });
    call.llm.reply({ text: 'Pois não.' });
    await call.caller.says('Que horas abrem no sábado?', 1000);
    await advance(1000); // the turn is over, the base is being searched
    expect(call.record.searches).toHaveLength(1);
    await call.caller.says('E no domingo?', 800);
    await advance(700 + 2600);
    expect(call.llm.requests).toHaveLength(1);
    expect(call.llm.requests[0].messages.filter((message: any) => message.role === 'user').map((message: any) => message.content)).toEqual([
      'Que horas abrem no sábado?',
      'E no domingo?',
    ]);
    expect(call.record.searches.map((search) => search.query)).toEqual(['Que horas abrem no sábado?', 'E no domingo?']);
    await advance(300 + 400 + audioMs('Pois não.') + 200);
    expect(call.turns()).toEqual(['customer: Que horas abrem no sábado?', 'customer: E no domingo?', 'assistant: Pois não.']);
    await call.end();
  });

  it('a search that fails: logged, and the model answers without a note', async () => {
    const call = virtualCall(customerFirst, { knowledge: { searchMs: 100, fails: true } });
    call.llm.reply({ text: 'Vou verificar.' });
    await call.caller.says('Que horas abrem?', 1000);
    await advance(700 + 200 + 300);
    expect(call.llm.requests).toHaveLength(1);
    expect(call.llm.requests[0].messages.at(-1)).toEqual({ role: 'user', content: 'Que horas abrem?' });
    expect(call.record.errors).toEqual(['voice: a knowledge-base search failed']);
    await advance(400 + audioMs('Vou verificar.') + 200);
    expect(call.turns()).toEqual(['customer: Que horas abrem?', 'assistant: Vou verificar.']);
    await call.end();
  });

  it('no search in function_call mode: the model is offered search_knowledge_base instead', async () => {
    const call = virtualCall(customerFirst, { knowledge: { mode: 'function_call', searchMs: 100, contents: [chunk] } });
    call.llm.reply({ text: 'Pois não.' });
    await call.caller.says('Que horas abrem?', 1000);
    await advance(700 + 200);
    expect(call.record.searches).toEqual([]);
    expect(call.llm.requests[0].tools.map((tool: any) => tool.function?.name ?? tool.name)).toContain('search_knowledge_base');
    await call.end();
  });
});
