/**
 * @jest-environment ./tests/setup/native-addons-environment.js
 *
 * @ci-once the pipeline engine's end-to-end calls: real-time audio and no GraphQL operation of its own; the search and its rules run on every Node
 */
import { speech } from '../helpers/caller';
import { until } from '../helpers/dialer';
import type { TestAccount, TestApp } from '../helpers/app';
import type { FakeDeepgram } from '../helpers/fakes/deepgram';
import type { FakeOpenAi } from '../helpers/fakes/openai';
import { PipelineCalls } from '../helpers/pipeline-calls';

/**
 * A pipeline assistant with a knowledge base, end to end on real sockets (design.md,
 * "Knowledge bases"): in `function_call` mode the model calls search_knowledge_base and its
 * answer, written from the chunk found, reaches the caller; in `prompt` mode the caller's turn
 * is searched and the chunk is in the model's context. Each search is on the answer's turn.
 */
let calls: PipelineCalls;
let app: TestApp;
let deepgram: FakeDeepgram;
let openai: FakeOpenAi;
let me: TestAccount;
let base: number;
/** The documents' chunks, by document name. */
const chunks: Record<string, { id: number; document_id: number; content: string }> = {};

const DOCUMENTS = {
  horario: 'Horário de funcionamento: de segunda a sexta das 8h às 18h; aos sábados a loja abre das 9h às 13h. Domingos e feriados fechado.',
  entrega: 'Entregamos em todo o Brasil pelos Correios. O prazo de entrega para Manaus e para a região Norte é de 10 dias úteis.',
  garantia: 'A garantia dos produtos é de 12 meses contra defeitos de fabricação. A troca por arrependimento vale por 7 dias.',
};

beforeAll(async () => {
  calls = await PipelineCalls.start();
  ({ app, deepgram, openai, me } = calls);
  base = (await app.request('POST', '/api/user/knowledgebases', { token: me.token, body: { name: 'Loja', language: 'portuguese' } })).body.data.id;
  for (const [name, content] of Object.entries(DOCUMENTS)) {
    const res = await app.request('POST', `/api/user/knowledgebases/${base}/documents`, { token: me.token, body: { name, type: 'text', content } });
    expect(res.status).toBe(201);
  }
  await until('the documents ingested', async () => (await app.request('GET', `/api/user/knowledgebases/${base}`, { token: me.token })).body.data.status, (status) => status === 'ready', 30_000);
  const rows = await app.sql(`select c.id, c.document_id, c.content, d.name from knowledge_chunks c join knowledge_documents d on d.id = c.document_id where c.knowledge_base_id = $1`, [base]);
  for (const row of rows) chunks[row.name] = { id: row.id, document_id: row.document_id, content: row.content };
  expect(Object.keys(chunks).sort()).toEqual(['entrega', 'garantia', 'horario']);
});
afterAll(() => calls?.close());
afterEach(() => calls.reset());

/** The call's turns through GraphQL, with their searches. */
async function turnsOf(id: number): Promise<any[]> {
  const res = await app.graphql(
    `query ($id: Int!) { call(id: $id) { turns { speaker text retrievals { knowledgebase_id mode query chunks { chunk_id document_id score } } } } }`,
    { id },
    me.token,
  );
  expect(res.body.errors).toBeUndefined();
  return res.body.data.call.turns;
}

it('function_call: the model searches the base, gets the chunk that answers, and its answer reaches the caller; the search is on the answer’s turn', async () => {
  const assistant = await calls.assistantWith({ knowledgebase_id: base, system_prompt: 'Você atende os clientes da loja.' });
  const spoken = calls.speechInputs().length;
  const live = await calls.call(assistant);
  await until('the opening spoken', async () => calls.speechInputs().slice(spoken), (inputs) => inputs.includes('Olá cliente, aqui é a Ana.'));
  await calls.quiet(live);

  deepgram.transcripts.push('Até que horas vocês abrem no sábado?');
  openai.chat.push(
    { text: '', toolCalls: [{ name: 'search_knowledge_base', arguments: '{"query":"horário sábado"}' }] },
    { text: 'Aos sábados abrimos de manhã, até a uma da tarde.' },
  );
  const from = openai.chatRequests.length;
  await live.caller.say(speech());
  const [first, second] = await until('the model asked twice', async () => openai.chatRequests.slice(from), (requests) => requests.length >= 2);
  const offered = first.body.tools.find((t: any) => t.function.name === 'search_knowledge_base');
  expect(offered.function.parameters).toEqual({ type: 'object', properties: { query: { type: 'string', description: expect.any(String) } }, required: ['query'] });

  // The tool's result: the opening hours' chunk first.
  const result = second.body.messages.at(-1);
  expect(result.role).toBe('tool');
  const { results } = JSON.parse(result.content);
  expect(results[0]).toEqual({ content: chunks.horario.content, score: expect.any(Number) });
  expect(results.map((r: any) => r.content)).not.toContain(chunks.garantia.content);

  await until('the answer spoken', async () => calls.speechInputs(), (inputs) => inputs.includes('Aos sábados abrimos de manhã, até a uma da tarde.'));
  await calls.quiet(live);
  await calls.hangUp(live);
  const turns = await until('the answer recorded', () => turnsOf(live.id), (t) => t.some((turn) => turn.text.startsWith('Aos sábados')));
  const answer = turns.find((turn) => turn.text === 'Aos sábados abrimos de manhã, até a uma da tarde.');
  expect(answer.speaker).toBe('assistant');
  expect(answer.retrievals).toEqual([
    { knowledgebase_id: base, mode: 'function_call', query: 'horário sábado', chunks: expect.arrayContaining([{ chunk_id: chunks.horario.id, document_id: chunks.horario.document_id, score: expect.any(Number) }]) },
  ]);
  expect(answer.retrievals[0].chunks[0].chunk_id).toBe(chunks.horario.id);
  // The other turns carry none.
  expect(turns.filter((turn) => turn !== answer).every((turn) => turn.retrievals.length === 0)).toBe(true);
});

it('prompt: the caller’s turn is searched and the chunk found is in the model’s context for that answer only; no function is offered for it', async () => {
  const assistant = await calls.assistantWith({ knowledgebase_id: base, knowledgebase_mode: 'prompt', system_prompt: 'Você atende os clientes da loja.' });
  const spoken = calls.speechInputs().length;
  const live = await calls.call(assistant);
  await until('the opening spoken', async () => calls.speechInputs().slice(spoken), (inputs) => inputs.includes('Olá cliente, aqui é a Ana.'));
  await calls.quiet(live);

  const from = openai.chatRequests.length;
  const asked = 'Vocês entregam em Manaus? Qual é o prazo de entrega?';
  deepgram.transcripts.push(asked);
  openai.chat.push({ text: 'Sim, entregamos em Manaus em dez dias úteis.' });
  await live.caller.say(speech());
  const [request] = await until('the model asked', async () => openai.chatRequests.slice(from), (requests) => requests.length >= 1);
  expect(request.body.tools.map((t: any) => t.function.name)).not.toContain('search_knowledge_base');
  const messages = request.body.messages;
  expect(messages.slice(0, 3)).toEqual([
    { role: 'system', content: 'Você atende os clientes da loja.' },
    { role: 'assistant', content: 'Olá cliente, aqui é a Ana.' },
    { role: 'user', content: asked },
  ]);
  expect(messages).toHaveLength(4);
  expect(messages[3].role).toBe('system');
  expect(messages[3].content).toContain(`[1] ${chunks.entrega.content}`);

  await until('the answer spoken', async () => calls.speechInputs(), (inputs) => inputs.some((input) => input.startsWith('Sim, entregamos em Manaus')));
  await calls.quiet(live);

  // The next answer searches afresh; the first answer's excerpts are not kept in the context.
  deepgram.transcripts.push('E a garantia?');
  openai.chat.push({ text: 'A garantia é de doze meses.' });
  await live.caller.say(speech());
  const [, next] = await until('the model asked again', async () => openai.chatRequests.slice(from), (requests) => requests.length >= 2);
  expect(next.body.messages.filter((m: any) => m.role === 'system' && m.content.includes(chunks.entrega.content))).toEqual([]);
  expect(next.body.messages.at(-1).content).toContain(`[1] ${chunks.garantia.content}`);
  await until('the second answer spoken', async () => calls.speechInputs(), (inputs) => inputs.some((input) => input.startsWith('A garantia é de doze meses')));
  await calls.quiet(live);
  await calls.hangUp(live);

  const turns = await until('the answers recorded', () => turnsOf(live.id), (t) => t.filter((turn) => turn.retrievals.length > 0).length === 2);
  const searched = turns.filter((turn) => turn.retrievals.length > 0);
  expect(searched.map((turn) => [turn.speaker, turn.text])).toEqual([
    ['assistant', 'Sim, entregamos em Manaus em dez dias úteis.'],
    ['assistant', 'A garantia é de doze meses.'],
  ]);
  expect(searched[0].retrievals).toEqual([{ knowledgebase_id: base, mode: 'prompt', query: asked, chunks: expect.any(Array) }]);
  expect(searched[0].retrievals[0].chunks[0]).toEqual({ chunk_id: chunks.entrega.id, document_id: chunks.entrega.document_id, score: expect.any(Number) });
  expect(searched[1].retrievals[0]).toMatchObject({ query: 'E a garantia?', chunks: [{ chunk_id: chunks.garantia.id }] });
});
