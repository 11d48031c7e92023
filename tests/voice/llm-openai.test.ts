import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PipelineVendors } from '../../src/config';
import { llmAccess, openAiClient, OpenAiLlm } from '../../src/voice/services/openai.llm';
import { ServiceError, type LlmChunk, type LlmRequest } from '../../src/voice/services/service';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fakes/openai';
import { startTestApp, type TestApp } from '../helpers/app';
import { paramsOfModel } from '../../src/modules/catalog/catalog.service';
import type { Assistant } from '../../src/modules/assistants/assistant.entity';
import type { Call } from '../../src/modules/calls/call.entity';
import { openAiAnalyst } from '../../src/voice/post-call';

/**
 * The OpenAI-compatible LLM service against a local server that speaks OpenAI's chat
 * completions stream (tests/helpers/fakes/openai.ts), over real HTTP.
 */
jest.setTimeout(15_000);

const KEY = 'sk-test-llm-0123456789abcdef';
let fake: FakeOpenAi;
let llm: OpenAiLlm;

beforeAll(async () => {
  fake = await startFakeOpenAi(KEY);
  // Bounds well above the fake's scripted delays (100 ms at most), well below its stalls.
  llm = new OpenAiLlm({ apiKey: KEY, url: fake.url, firstChunkMs: 1000, nextChunkMs: 1000 });
});
afterAll(() => fake?.close());
beforeEach(() => {
  fake.chat.length = 0;
  fake.chatRequests.length = 0;
});

const REQUEST: LlmRequest = {
  model: 'gpt-4o-mini',
  temperature: 0.6,
  messages: [
    { role: 'system', content: 'You are the scheduling assistant of a dental clinic.' },
    { role: 'user', content: 'Can I move my appointment?' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'find_appointment', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'call_1', content: '{"when":"2025-03-04T10:00"}' },
  ],
  tools: [
    { name: 'move_appointment', description: 'Moves the appointment.', parameters: { type: 'object', properties: { to: { type: 'string' } }, required: ['to'] } },
    { name: 'end_call', description: 'Ends the call.', parameters: { type: 'object', properties: {} } },
  ],
};

/** Everything the completion yields, or the error it ends with. */
async function run(service: OpenAiLlm, request: LlmRequest = REQUEST, signal = new AbortController().signal) {
  const chunks: LlmChunk[] = [];
  try {
    for await (const chunk of service.complete(request, signal)) chunks.push(chunk);
    return { chunks, error: null };
  } catch (error) {
    return { chunks, error: error as ServiceError };
  }
}

const texts = (chunks: LlmChunk[]) => chunks.flatMap((chunk) => (chunk.type === 'text' ? [chunk.text] : []));

it('asks for a streamed completion with usage, the model, temperature, messages and tools as functions, and yields the text as it comes, the usage last', async () => {
  const text = 'You are booked for Tuesday at ten. Anything else?';
  fake.chat.push({ text, usage: { prompt_tokens: 120, completion_tokens: 14 } });
  const { chunks, error } = await run(llm);
  expect(error).toBeNull();

  const [request] = fake.chatRequests;
  expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
  expect(request.body).toEqual({
    model: 'gpt-4o-mini',
    temperature: 0.6,
    messages: REQUEST.messages,
    tools: REQUEST.tools.map((tool) => ({ type: 'function', function: tool })),
    stream: true,
    stream_options: { include_usage: true },
  });
  // One chunk per delta of the fake (a word each), in order.
  expect(texts(chunks)).toEqual(text.match(/\S*\s*/g)!.filter(Boolean));
  expect(chunks.at(-1)).toEqual({ type: 'usage', inputTokens: 120, outputTokens: 14 });
  expect(chunks.filter((chunk) => chunk.type === 'usage')).toHaveLength(1);
});

it('leaves tools out when there are none (OpenAI refuses an empty array)', async () => {
  const { error } = await run(llm, { ...REQUEST, messages: REQUEST.messages.slice(0, 2), tools: [] });
  expect(error).toBeNull();
  expect(fake.chatRequests[0].body).not.toHaveProperty('tools');
});

it.each([
  ['one after the other, as OpenAI sends them', false],
  ['with their deltas interleaved', true],
])('joins two tool calls whose arguments come in fragments (%s), each yielded once whole, before the usage', async (_, interleave) => {
  const calls = [
    { name: 'move_appointment', arguments: '{"to":"2025-03-11T15:30","note":"patient asked, by phone"}' },
    { name: 'end_call', arguments: '{"reason":"done"}' },
  ];
  fake.chat.push({ text: 'One moment.', toolCalls: calls, interleave });
  const { chunks, error } = await run(llm);
  expect(error).toBeNull();
  expect(texts(chunks).join('')).toBe('One moment.');
  const toolCalls = chunks.filter((chunk) => chunk.type === 'tool_call');
  expect(toolCalls).toEqual(calls.map((call) => ({ type: 'tool_call', call: { id: expect.stringMatching(/^call_/), type: 'function', function: call } })));
  const ids = toolCalls.map((chunk) => chunk.type === 'tool_call' && chunk.call.id);
  expect(new Set(ids).size).toBe(2);
  expect(chunks.at(-1)!.type).toBe('usage');
});

it('ends quietly when the signal aborts mid-stream, and the request is closed', async () => {
  const words = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
  // Slow enough that the whole answer takes seconds; the abort comes after the first word.
  fake.chat.push({ text: words, tokenMs: 100 });
  const controller = new AbortController();
  const chunks: LlmChunk[] = [];
  for await (const chunk of llm.complete(REQUEST, controller.signal)) {
    chunks.push(chunk);
    controller.abort();
  }
  expect(chunks).toEqual([{ type: 'text', text: 'word0 ' }]);
  await expect(fake.chatRequests[0].outcome).resolves.toBe('closed');
});

it('ends at the abort even when the rest of the answer already came in the same read', async () => {
  fake.chat.push({ text: 'All of this arrives at once, in one read of the socket.' });
  const controller = new AbortController();
  const chunks: LlmChunk[] = [];
  for await (const chunk of llm.complete(REQUEST, controller.signal)) {
    chunks.push(chunk);
    controller.abort();
  }
  expect(chunks).toEqual([{ type: 'text', text: 'All ' }]);
});

it('yields no more tool calls once the signal aborts on one', async () => {
  fake.chat.push({ toolCalls: [{ name: 'move_appointment', arguments: '{"to":"2025-03-11T15:30"}' }, { name: 'end_call', arguments: '{}' }] });
  const controller = new AbortController();
  const chunks: LlmChunk[] = [];
  for await (const chunk of llm.complete(REQUEST, controller.signal)) {
    chunks.push(chunk);
    controller.abort();
  }
  expect(chunks).toEqual([{ type: 'tool_call', call: { id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'move_appointment', arguments: '{"to":"2025-03-11T15:30"}' } } }]);
});

it('yields nothing when the signal is already aborted, and sends no request', async () => {
  const { chunks, error } = await run(llm, REQUEST, AbortSignal.abort());
  expect({ chunks, error }).toEqual({ chunks: [], error: null });
  expect(fake.chatRequests).toHaveLength(0);
});

it('fails refused on a wrong key (401), naming the status and the code but neither the key nor the vendor message that quotes it', async () => {
  const wrong = 'sk-wrong-key-ABCDEFGHIJKLMNOP';
  const { chunks, error } = await run(new OpenAiLlm({ apiKey: wrong, url: fake.url }));
  expect(chunks).toEqual([]);
  expect(error).toBeInstanceOf(ServiceError);
  expect(error).toMatchObject({ part: 'llm', kind: 'refused' });
  expect(error!.message).toContain('401');
  expect(error!.message).toContain('invalid_api_key');
  for (const secret of [wrong, wrong.slice(0, 8), wrong.slice(-4), 'Incorrect API key']) expect(error!.message).not.toContain(secret);
});

it.each([400, 404, 429, 500, 503])('fails refused when the vendor answers HTTP %i, at once (no retries)', async (status) => {
  fake.chat.push({ status });
  const { error } = await run(llm);
  expect(error).toMatchObject({ part: 'llm', kind: 'refused' });
  expect(error!.message).toContain(String(status));
  expect(fake.chatRequests).toHaveLength(1);
});

it('fails refused when the vendor ends its stream with an error event, naming its type of failure', async () => {
  fake.chat.push({ text: 'Part of an answer that the vendor gives up on', streamError: true });
  const { chunks, error } = await run(llm);
  expect(error).toBeInstanceOf(ServiceError);
  expect(error).toMatchObject({ part: 'llm', kind: 'refused' });
  expect(error!.message).toContain('ended its stream with an error');
  expect(texts(chunks).length).toBeGreaterThan(0);
});

it.each([
  ['never answers', { stall: true }],
  ['sends its headers and then nothing', { firstTokenMs: 10_000 }],
  ['stops between two chunks', { text: 'First words and then silence', tokenMs: 10_000 }],
])('fails stalled when the vendor %s within the bound', async (_, reply) => {
  fake.chat.push(reply);
  const { chunks, error } = await run(llm);
  expect(error).toBeInstanceOf(ServiceError);
  expect(error).toMatchObject({ part: 'llm', kind: 'stalled' });
  expect(chunks.every((chunk) => chunk.type === 'text')).toBe(true);
  await expect(fake.chatRequests[0].outcome).resolves.toBe('closed');
});

it.each([
  ['the connection is reset mid-stream', { text: 'Part of an answer that never ends well', drop: true }],
  ['the stream ends before the answer does', { text: 'Part of an answer that never ends well', truncate: true }],
])('fails dropped when %s, after the text that came', async (_, reply) => {
  // Chunks apart, as a vendor's are: a stream that fails in the read that brought its data loses that data.
  fake.chat.push({ ...reply, tokenMs: 30 });
  const { chunks, error } = await run(llm);
  expect(error).toBeInstanceOf(ServiceError);
  expect(error).toMatchObject({ part: 'llm', kind: 'dropped' });
  expect(texts(chunks).length).toBeGreaterThan(0);
  expect(chunks.some((chunk) => chunk.type === 'usage')).toBe(false);
});

it('fails dropped when nothing listens at the URL', async () => {
  const closed = await startFakeOpenAi(KEY);
  await closed.close();
  const { error } = await run(new OpenAiLlm({ apiKey: KEY, url: closed.url }));
  expect(error).toMatchObject({ part: 'llm', kind: 'dropped' });
  expect(error!.message).toContain('ECONNREFUSED');
});

it('the fake answers an unstreamed request with one chat.completion, for other callers of the API', async () => {
  fake.chat.push({ text: 'Sure.', toolCalls: [{ name: 'end_call', arguments: '{}' }] });
  const completion = await openAiClient({ apiKey: KEY, url: fake.url }).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Bye' }] });
  expect(completion).toMatchObject({
    object: 'chat.completion',
    model: 'gpt-4o-mini',
    choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: 'Sure.', tool_calls: [{ id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'end_call', arguments: '{}' } }] } }],
    usage: { prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number) },
  });
});

describe('a server that sends what OpenAI’s stream never holds', () => {
  /** A server that answers every request with `write(res)`, over real HTTP. */
  async function serving(write: (res: ServerResponse) => void) {
    const server = createServer((req, res) => req.resume().on('end', () => write(res)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return { llm: new OpenAiLlm({ apiKey: KEY, url: `http://127.0.0.1:${port}/v1`, firstChunkMs: 1000, nextChunkMs: 1000 }), close: () => new Promise((resolve) => server.close(resolve)) };
  }
  const sse = (res: ServerResponse, ...events: unknown[]) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const event of events) res.write(`data: ${typeof event === 'string' ? event : JSON.stringify(event)}\n\n`);
    res.end('data: [DONE]\n\n');
  };
  const chunk = (delta: unknown, extra: Record<string, unknown> = {}) => ({ object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: null }], ...extra });
  const finish = { object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] };

  it.each([
    ['an event that is not JSON', (res: ServerResponse) => sse(res, chunk({ content: 'Hi' }), 'not json', finish), 'sent an event that is not JSON'],
    [
      'an event that goes on for more than a million characters',
      (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/event-stream' }).write(`data: {"choices":[{"delta":{"content":"${'x'.repeat(2 << 20)}`),
      'sent more than 1048576 characters of one event',
    ],
    [
      'tool calls of more than a million characters in all',
      (res: ServerResponse) => sse(res, ...Array.from({ length: 5 }, () => chunk({ tool_calls: [{ index: 0, id: 'call_1', function: { name: 'f', arguments: 'a'.repeat(300_000) } }] })), finish),
      'sent tool calls longer than',
    ],
    ['a redirect', (res: ServerResponse) => res.writeHead(302, { location: 'http://127.0.0.1:9/' }).end(), 'answered HTTP 302'],
  ])('refuses %s', async (_, write, message) => {
    const server = await serving(write);
    try {
      const { error } = await run(server.llm);
      expect(error).toBeInstanceOf(ServiceError);
      expect(error).toMatchObject({ part: 'llm', kind: 'refused' });
      expect(error!.message).toContain(message);
    } finally {
      await server.close();
    }
  });

  it('lets a connection go a second before the server’s Keep-Alive timeout, so a request after a pause never meets it closing', async () => {
    // A Node server announces `Keep-Alive: timeout=4` and closes an idle connection after 4 s.
    const server = createServer((req, res) => req.resume().on('end', () => sse(res, chunk({ content: 'Olá' }), finish)));
    server.keepAliveTimeout = 4000;
    let connections = 0;
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const llm = new OpenAiLlm({ apiKey: KEY, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, firstChunkMs: 1000, nextChunkMs: 1000 });
    try {
      expect(texts((await run(llm)).chunks)).toEqual(['Olá']);
      // At once: the same connection serves the next request.
      expect(texts((await run(llm)).chunks)).toEqual(['Olá']);
      expect(connections).toBe(1);
      // 3.5 s idle: past the agent's 3 s (the hint less a second), before the server's 4 s. A new connection.
      await new Promise((resolve) => setTimeout(resolve, 3500));
      expect(texts((await run(llm)).chunks)).toEqual(['Olá']);
      expect(connections).toBe(2);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('refuses an unstreamed answer that is no JSON object, or that goes on for more than 4 MB', async () => {
    for (const [write, message] of [
      [(res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end('[1, 2]'), 'answered no JSON object'],
      [(res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end(`{"x":"${'x'.repeat(5 << 20)}"}`), 'answered more than 4194304 bytes'],
    ] as const) {
      const server = await serving(write);
      try {
        const error = await server.llm.answer({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Oi' }], schema: { name: 'x', schema: {} } }, 5000).catch((failure: unknown) => failure);
        expect(error).toMatchObject({ part: 'llm', kind: 'refused', message: expect.stringContaining(message) });
      } finally {
        await server.close();
      }
    }
  });

  it('reads an unstreamed answer of any other JSON shape as no text and no tokens, never a throw of its own', async () => {
    for (const body of ['null', '7', '"text"', '{"choices":null}', '{"choices":[null]}', '{"choices":[{"message":{"content":7}}],"usage":{"prompt_tokens":"many","completion_tokens":-3}}']) {
      const server = await serving((res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
      try {
        const answer = await server.llm.answer({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Oi' }], schema: { name: 'x', schema: {} } }, 5000).catch((failure: unknown) => failure);
        if (body.startsWith('{')) expect([body, answer]).toEqual([body, { text: '', inputTokens: 0, outputTokens: 0 }]);
        else expect([body, answer]).toEqual([body, expect.objectContaining({ part: 'llm', kind: 'refused', message: expect.stringContaining('answered no JSON object') })]);
      } finally {
        await server.close();
      }
    }
  });

  it('reads a vendor that sends as fast as it can (50,000 chunks at once, 5 MB) whole, chunk by chunk', async () => {
    const pieces = 50_000;
    const server = await serving((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify(chunk({ content: 'x' }))}\n\n`.repeat(pieces));
      res.end(`data: ${JSON.stringify(finish)}\n\ndata: [DONE]\n\n`);
    });
    try {
      const { chunks, error } = await run(server.llm);
      expect(error).toBeNull();
      expect(texts(chunks)).toHaveLength(pieces);
      expect(texts(chunks).join('')).toBe('x'.repeat(pieces));
    } finally {
      await server.close();
    }
  });

  it('leaves out what a chunk holds in another shape, and keeps the text and tool calls around it', async () => {
    const server = await serving((res) =>
      sse(
        res,
        5,
        [],
        { choices: 'none' },
        { choices: [null] },
        chunk(null),
        chunk({ content: 7 }),
        chunk({ content: 'Fine.' }),
        chunk({ tool_calls: [{ index: 'first' }, null, { index: 0, id: 'call_1', function: { name: 'end_call', arguments: '{}' } }] }),
        chunk({ tool_calls: 'all' }),
        { ...finish, usage: { prompt_tokens: -1, completion_tokens: 'many' } },
      ),
    );
    try {
      const { chunks, error } = await run(server.llm);
      expect(error).toBeNull();
      expect(chunks).toEqual([
        { type: 'text', text: 'Fine.' },
        { type: 'tool_call', call: { id: 'call_1', type: 'function', function: { name: 'end_call', arguments: '{}' } } },
        { type: 'usage', inputTokens: 0, outputTokens: 0 },
      ]);
    } finally {
      await server.close();
    }
  });
});

describe('an unstreamed answer in a JSON schema (a test’s judge)', () => {
  const schema = { name: 'verdicts', schema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'], additionalProperties: false } };
  const messages = [
    { role: 'system' as const, content: 'Judge the transcript.' },
    { role: 'user' as const, content: 'Cliente: Oi. Assistente: Olá!' },
  ];

  it('asks for the schema, unstreamed, and answers the text and the token counts', async () => {
    fake.chat.push({ text: '{"ok":true}', usage: { prompt_tokens: 30, completion_tokens: 4 } });
    await expect(llm.answer({ model: 'gpt-4o-mini', messages, schema }, 1000)).resolves.toEqual({ text: '{"ok":true}', inputTokens: 30, outputTokens: 4 });
    expect(fake.chatRequests[0].headers.authorization).toBe(`Bearer ${KEY}`);
    expect(fake.chatRequests[0].body).toEqual({ model: 'gpt-4o-mini', messages, response_format: { type: 'json_schema', json_schema: { name: 'verdicts', strict: true, schema: schema.schema } } });
  });

  it.each([
    ['an HTTP error status', { status: 503 }, 'refused', 'answered HTTP 503'],
    ['no answer within the bound', { stall: true }, 'stalled', 'did not answer within 300 ms'],
  ])('fails %s as the streamed completion does', async (_, reply, kind, message) => {
    fake.chat.push(reply);
    const error = await llm.answer({ model: 'gpt-4o-mini', messages, schema }, 300).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toMatchObject({ part: 'llm', kind });
    expect((error as Error).message).toContain(message);
  });
});

describe('the catalogue’s model params', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app?.close());

  /** The LLM service as a call builds it: with the catalogue's params of the assistant's model. */
  const serviceFor = async (model: string) =>
    new OpenAiLlm({ apiKey: KEY, url: fake.url, firstChunkMs: 1000, nextChunkMs: 1000, models: { [model]: await paramsOfModel(app.orm.em.fork(), model) } });

  it('a gpt-5 model is asked with no temperature and its reasoning effort; a gpt-4o model with the temperature and none', async () => {
    const five = await run(await serviceFor('gpt-5-mini'), { ...REQUEST, model: 'gpt-5-mini' });
    expect(five.error).toBeNull();
    expect(fake.chatRequests[0].body).not.toHaveProperty('temperature');
    expect(fake.chatRequests[0].body).toMatchObject({ model: 'gpt-5-mini', reasoning_effort: 'minimal' });

    const four = await run(await serviceFor('gpt-4o'), { ...REQUEST, model: 'gpt-4o' });
    expect(four.error).toBeNull();
    expect(fake.chatRequests[1].body).toMatchObject({ model: 'gpt-4o', temperature: 0.6 });
    expect(fake.chatRequests[1].body).not.toHaveProperty('reasoning_effort');

    // A model the catalogue does not list keeps today's request: the temperature, no effort.
    expect(await paramsOfModel(app.orm.em.fork(), 'llama-local')).toEqual({ supports_temperature: true, reasoning_effort: null });
  });

  it('the fake refuses a temperature for gpt-5 as OpenAI does, which the service reports as refused', async () => {
    const { error } = await run(llm, { ...REQUEST, model: 'gpt-5' });
    expect([error?.kind, error?.message]).toEqual(['refused', `LLM at ${new URL(fake.url).host} answered HTTP 400 (unsupported_value)`]);
    expect(fake.chatRequests).toHaveLength(0);
  });

  it('the post-call analyst asks a gpt-5 model with no temperature, and a gpt-4o model at temperature 0', async () => {
    const assistant = { system_prompt: 'Confirme o pedido.', post_call_schema: [{ name: 'confirmed', type: 'bool', description: 'Confirmou' }], post_call_evaluation: false } as unknown as Assistant;
    const call = { input_variables: {}, transcript: 'Cliente: Sim, confirmo.' } as unknown as Call;
    for (const model of ['gpt-5-nano', 'gpt-4o-mini']) {
      fake.chat.push({ text: '{"variables":{"confirmed":true}}' });
      const analyst = openAiAnalyst(
        { apiKey: KEY, baseUrl: fake.url, postCallModel: model, realtimeUrl: 'ws://127.0.0.1:9', realtimeModel: 'gpt-realtime' },
        (name) => paramsOfModel(app.orm.em.fork(), name),
      );
      await expect(analyst.analyse(assistant, call)).resolves.toEqual({ variables: { confirmed: true } });
    }
    const [five, four] = fake.chatRequests.map((request) => request.body);
    expect(five).toMatchObject({ model: 'gpt-5-nano', reasoning_effort: 'minimal' });
    expect(five).not.toHaveProperty('temperature');
    expect(four).toMatchObject({ model: 'gpt-4o-mini', temperature: 0 });
    expect(four).not.toHaveProperty('reasoning_effort');
  });

  it('GraphQL shows each model’s params', async () => {
    const me = await app.account();
    const res = await app.graphql('{ models(type: "llm") { name params { supports_temperature reasoning_effort } } }', {}, me.token);
    const byName = Object.fromEntries(res.body.data.models.map((model: any) => [model.name, model.params]));
    expect(byName['gpt-5']).toEqual({ supports_temperature: false, reasoning_effort: 'minimal' });
    expect(byName['gpt-4o']).toEqual({ supports_temperature: true, reasoning_effort: null });
  });
});

describe('llmAccess', () => {
  const openai = { apiKey: 'sk-openai', url: 'https://api.openai.com/v1' };
  const groq = { apiKey: 'gsk-groq', url: 'https://api.groq.com/openai/v1' };
  const vendors: PipelineVendors = { deepgram: null, elevenlabs: null, cartesia: null, openai, llmProviders: { groq }, ttsProviders: {}, sttProviders: {} };

  it('gives a listed provider its own endpoint and key, whatever the case of its name', () => {
    expect(llmAccess(vendors, 'groq')).toBe(groq);
    expect(llmAccess(vendors, 'Groq')).toBe(groq);
  });

  it('sends an unlisted provider, and a model without one, to OpenAI', () => {
    expect(llmAccess(vendors, 'anthropic')).toBe(openai);
    expect(llmAccess(vendors, null)).toBe(openai);
    expect(llmAccess({ ...vendors, openai: null }, 'mistral')).toBeNull();
  });
});
