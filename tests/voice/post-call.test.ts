import { startTestApp, type TestApp, NO_VENDORS } from '../helpers/app';
import { dialerKit, until } from '../helpers/dialer';
import { json, startReceiver, type Receiver } from '../helpers/receiver';
import { startFakeTwilio, type FakeTwilio } from '../helpers/twilio';

/**
 * Post-call work of real calls: the model's extraction and evaluation through a local
 * server that speaks OpenAI's /chat/completions (structured outputs), retried when it fails,
 * then the campaign lead's attempt (on the goal variable) and the post-call webhook.
 */
let app: TestApp;
let twilioFake: FakeTwilio;
let model: Receiver;
let hooks: Receiver;
/** What the model answers next, in order; a number answers that HTTP status. */
const answers: (number | Record<string, unknown>)[] = [];
const kit = dialerKit(() => app);

beforeAll(async () => {
  twilioFake = await startFakeTwilio();
  hooks = await startReceiver();
  model = await startReceiver();
  model.respond = (_request, res) => {
    const answer = answers.shift() ?? 500;
    if (typeof answer === 'number') return json(res, answer, { error: { message: 'The server had an error', type: 'server_error' } });
    json(res, 200, {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      model: 'gpt-4o-mini',
      choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: JSON.stringify(answer), refusal: null } }],
    });
  };
  app = await startTestApp(
    {
      telephony: { provider: 'twilio', simulatorSpeed: 1000, twilio: twilioFake.settings() },
      voice: { openai: { apiKey: 'sk-post-call', realtimeUrl: 'ws://127.0.0.1:9', realtimeModel: 'gpt-realtime', baseUrl: model.url, postCallModel: 'gpt-4o-mini' }, pipelineEngineUrl: null, pipeline: NO_VENDORS },
      dialerTimeScale: 600,
      allowPrivateNetworkTargets: true,
    },
    { workers: true },
  );
});
afterAll(async () => {
  await app?.close();
  await model?.close();
  await hooks?.close();
  await twilioFake?.close();
});

it('extracts and evaluates with the model (retried when it fails), then settles the lead on the goal variable and sends the webhook', async () => {
  const s = await kit.setup(
    { retry_on_goal_incomplete: true, goal_completion_variable: 'confirmed', max_retries: 2, retry_interval: 1 },
    {
      assistant: {
        post_call_evaluation: true,
        post_call_schema: [
          { name: 'confirmed', type: 'bool', description: 'O cliente confirmou o pedido' },
          { name: 'delivery_day', type: 'string', description: 'O dia de entrega combinado' },
        ],
        is_webhook_active: true,
        webhook_url: `${hooks.url}/calls`,
      },
    },
  );
  const lead = await kit.addLead(s, '+5511987651234', { variables: { customer_name: 'Ana' } });
  expect((await kit.setStatus(s, 'start')).status).toBe(200);

  /** Answers the lead's next call, says `lines` on it through the engine API, and completes it. */
  const talk = async (attempt: number, lines: string[]) => {
    const [call] = await until('placed', () => app.sql('select id, provider_call_id from calls where lead_id = $1 and attempt = $2', [lead, attempt]), (rows) => rows[0]?.provider_call_id);
    const twiml = new URLSearchParams(twilioFake.posts().filter((r) => new URLSearchParams(r.body).get('To') === '+5511987651234')[attempt - 1].body).get('Twiml')!;
    const token = /name="token" value="([^"]+)"/.exec(twiml)![1];
    const status = (CallStatus: string, extra: Record<string, string> = {}) =>
      twilioFake.request(app.config.publicUrl, `/telephony/twilio/status?call=${call.id}`, { CallSid: call.provider_call_id, CallStatus, ...extra });
    await status('in-progress');
    for (const [i, text] of lines.entries()) {
      const res = await fetch(`${app.config.publicUrl}/engine/calls/${call.id}/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'turn', speaker: i % 2 ? 'customer' : 'assistant', text }),
      });
      expect(res.status).toBe(204);
    }
    await status('completed', { CallDuration: '40' });
    return call.id as number;
  };

  // First call: the model API fails once, then says the order was not confirmed.
  answers.push(503, { variables: { confirmed: false, delivery_day: null }, evaluation: { sentiment: 'neutral', outcome: 'callback_requested', score: 4 } });
  const first = await talk(1, ['Olá Ana, posso confirmar seu pedido?', 'Agora não, me liga depois.']);
  // Waiting for the model, the lead's attempt stays open and nothing is sent.
  expect((await app.sql('select post_call_pending from calls where id = $1', [first]))[0].post_call_pending).toBe(true);
  expect((await app.sql('select status from leads where id = $1', [lead]))[0].status).toBe('processing');
  const analysed = await until('analysed', async () => (await app.sql('select post_call_pending, variables, evaluation from calls where id = $1', [first]))[0], (row) => !row.post_call_pending, 15_000);
  expect(analysed).toEqual({ post_call_pending: false, variables: { confirmed: false }, evaluation: { sentiment: 'neutral', outcome: 'callback_requested', score: 4 } });
  expect(model.requests).toHaveLength(2);

  // The request: the transcript, and a strict JSON schema built from post_call_schema and the evaluation.
  const request = JSON.parse(model.requests[1].body);
  expect(model.requests[1].headers.authorization).toBe('Bearer sk-post-call');
  expect(request.model).toBe('gpt-4o-mini');
  expect(request.messages[1].content).toContain('Assistente: Olá Ana, posso confirmar seu pedido?\nCliente: Agora não, me liga depois.');
  expect(request.response_format).toMatchObject({
    type: 'json_schema',
    json_schema: {
      name: 'post_call',
      strict: true,
      schema: {
        type: 'object',
        required: ['variables', 'evaluation'],
        additionalProperties: false,
        properties: {
          variables: {
            type: 'object',
            required: ['confirmed', 'delivery_day'],
            additionalProperties: false,
            properties: { confirmed: { type: ['boolean', 'null'] }, delivery_day: { type: ['string', 'null'] } },
          },
          evaluation: { required: ['sentiment', 'outcome', 'score'] },
        },
      },
    },
  });

  // The goal was not reached: the lead is called again; the webhook carried what the model found.
  const hook = await until('the webhook', async () => hooks.requests.filter((r) => JSON.parse(r.body).id === first), (found) => found.length === 1);
  expect(JSON.parse(hook[0].body)).toMatchObject({ extracted_variables: { confirmed: false }, evaluation: { outcome: 'callback_requested' } });

  answers.push({ variables: { confirmed: true, delivery_day: 'terça' }, evaluation: { sentiment: 'positive', outcome: 'successful', score: 9 } });
  const second = await talk(2, ['Olá Ana, posso confirmar seu pedido?', 'Pode sim, entrega na terça.']);
  await until('lead completed', async () => (await app.sql('select status, attempts from leads where id = $1', [lead]))[0], (row) => row.status === 'completed', 15_000);
  expect((await app.sql('select variables from calls where id = $1', [second]))[0].variables).toEqual({ confirmed: true, delivery_day: 'terça' });
}, 40_000);
