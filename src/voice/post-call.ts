import type { Config } from '../config';
import type { Assistant } from '../modules/assistants/assistant.entity';
import type { PostCallAnalysis, PostCallAnalyst, PostCallInput } from '../modules/calls/call.ports';
import { JSON_TYPES } from '../modules/calls/call.post-call';
import { samplingFields, type ModelParams } from '../modules/catalog/model.params';

/**
 * The post-call analyst on OpenAI's chat completions (design.md, "Voice engines"):
 * `POST {OPENAI_BASE_URL}/chat/completions` with a JSON schema made from the assistant's
 * `post_call_schema` and `post_call_evaluation`. The job around it is the domain's
 * (modules/calls/call.post-call.ts).
 */
const REQUEST_TIMEOUT_MS = 60_000;

type OpenAiSettings = NonNullable<Config['voice']['openai']>;

/** The catalogue's params of a model, by name (gpt-5 takes no temperature); null: the default. */
export type ModelParamsOf = (model: string) => Promise<ModelParams | null>;

export function openAiAnalyst(config: OpenAiSettings, paramsOf: ModelParamsOf = async () => null): PostCallAnalyst {
  return { analyse: async (assistant, call) => analyse(config, await paramsOf(config.postCallModel), assistant, call) };
}

/** The JSON schema the model answers with. */
export function postCallSchema(assistant: Pick<Assistant, 'post_call_schema' | 'post_call_evaluation'>): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  if (assistant.post_call_schema.length) {
    properties.variables = {
      type: 'object',
      properties: Object.fromEntries(assistant.post_call_schema.map((item) => [item.name, { type: [JSON_TYPES[item.type], 'null'], description: item.description }])),
      required: assistant.post_call_schema.map((item) => item.name),
      additionalProperties: false,
    };
  }
  if (assistant.post_call_evaluation) {
    properties.evaluation = {
      type: 'object',
      properties: {
        sentiment: { type: 'string', enum: ['positive', 'neutral', 'negative'], description: 'The customer’s sentiment.' },
        outcome: { type: 'string', description: 'The call’s outcome in snake_case, for example successful, not_interested, callback_requested, customer_hung_up.' },
        score: { type: 'number', description: 'How well the call reached its goal, from 0 to 10.' },
      },
      required: ['sentiment', 'outcome', 'score'],
      additionalProperties: false,
    };
  }
  return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
}

/** Asks the model; throws on anything but a usable answer (the job is tried again). */
async function analyse(config: OpenAiSettings, params: ModelParams | null, assistant: Assistant, call: PostCallInput): Promise<PostCallAnalysis> {
  const response = await fetch(`${config.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${config.apiKey}`, 'content-type': 'application/json' },
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    body: JSON.stringify({
      model: config.postCallModel,
      // The same answer for the same call, where the model takes a temperature.
      ...samplingFields(params, 0),
      messages: [
        {
          role: 'system',
          content:
            'You analyse the transcript of a phone call between an AI assistant and a customer. ' +
            'Extract each requested value from what was said (null when the call did not tell it) and, when asked, evaluate the call. ' +
            `The assistant's instructions were:\n${assistant.system_prompt}`,
        },
        { role: 'user', content: `Call variables: ${JSON.stringify(call.input_variables)}\n\nTranscript:\n${call.transcript || '(empty)'}` },
      ],
      response_format: { type: 'json_schema', json_schema: { name: 'post_call', strict: true, schema: postCallSchema(assistant) } },
    }),
  });
  if (!response.ok) throw new Error(`post-call: the model API answered HTTP ${response.status}`);
  const body = (await response.json()) as { choices?: { message?: { content?: string | null; refusal?: string | null } }[] };
  const content = body.choices?.[0]?.message?.content;
  if (typeof content !== 'string') throw new Error('post-call: the model gave no answer');
  const analysis = JSON.parse(content) as PostCallAnalysis;
  if (typeof analysis !== 'object' || analysis === null) throw new Error('post-call: the answer is not an object');
  return analysis;
}
