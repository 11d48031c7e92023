import { ENGINE_GRACE_SECONDS, ENGINE_MAX_TRANSCRIPT_CHARS, ENGINE_MAX_TURN_CHARS, ENGINE_MAX_TURNS, ENGINE_RATE_LIMIT } from '../voice/engine.api';
import type { JsonSchema } from './openapi.components';

/**
 * The engine API (src/voice/engine.api.ts), described beside the REST API: outside /api,
 * authenticated by the call's token (the TwiML's `<Parameter name="token">`), for the
 * external engines of `pipeline` assistants.
 */
const ROOT = [{ url: '/', description: 'The service root (PUBLIC_URL), not /api.' }];
const SECURITY = [{ callToken: [] }];
const CALL_ID = { name: 'id', in: 'path', required: true, schema: { type: 'integer' }, description: 'The call_id of the stream’s start parameters.' };
const error = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });
const REFUSED = {
  '401': error('A missing or wrong token (each call has its own).'),
  '404': error('No such call, or its assistant was deleted.'),
  '409': error(`The call ended more than ${ENGINE_GRACE_SECONDS} s ago.`),
  '429': error(`More than ${ENGINE_RATE_LIMIT} requests of the call in a second; \`Retry-After\` says when to come back.`),
};

const FUNCTION: JsonSchema = {
  type: 'object',
  properties: { type: { const: 'function' }, name: { type: 'string' }, description: { type: 'string' }, parameters: { type: 'object' } },
  required: ['type', 'name', 'description', 'parameters'],
};

export const ENGINE_SECURITY_SCHEME = {
  type: 'http',
  scheme: 'bearer',
  description: 'The call’s token: the `token` parameter of the Twilio Media Streams `start` (customParameters), valid for that call only.',
};

export const ENGINE_OPENAPI_PATHS: Record<string, JsonSchema> = {
  '/engine/calls/{id}': {
    servers: ROOT,
    get: {
      summary: 'A call and its assistant’s configuration, for the engine that runs it',
      description: 'The prompt and initial message have the call’s variables (over the assistant’s) filled in; the tools are the assistant’s mid-call tools as functions, and the end-call tool.',
      tags: ['Engine API'],
      security: SECURITY,
      parameters: [CALL_ID],
      responses: {
        '200': {
          description: 'The call and its assistant.',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  call: {
                    type: 'object',
                    properties: {
                      id: { type: 'integer' },
                      type: { type: 'string' },
                      status: { type: 'string' },
                      customer_phone: { type: 'string' },
                      assistant_phone: { type: 'string' },
                      provider_call_id: { type: ['string', 'null'] },
                      variables: { type: 'object' },
                    },
                    required: ['id', 'type', 'status', 'customer_phone', 'assistant_phone', 'variables'],
                  },
                  assistant: {
                    type: 'object',
                    properties: {
                      name: { type: 'string' },
                      language: { type: 'string' },
                      language_code: { type: ['string', 'null'], description: 'ISO 639-1.' },
                      voice: { type: 'string' },
                      llm_model: { type: 'string' },
                      llm_temperature: { type: 'number' },
                      system_prompt: { type: 'string' },
                      initial_message: { type: 'string' },
                      who_speaks_first: { type: 'string' },
                      allow_interruptions: { type: 'boolean' },
                      keyterms: { type: 'array', items: { type: 'string' }, description: 'The call’s variables filled; those left empty dropped.' },
                      pronunciations: { type: 'array', items: { type: 'object', properties: { word: { type: 'string' }, say_as: { type: 'string' } } } },
                      backchannel_words: { type: ['array', 'null'], items: { type: 'string' }, description: 'Null: the language’s defaults.' },
                      false_interruption_timeout_ms: { type: 'integer' },
                      voicemail_message: { type: ['string', 'null'], description: 'With the call’s variables filled.' },
                      voicemail_beep_timeout_seconds: { type: 'integer' },
                      tools: { type: 'array', items: FUNCTION },
                      end_call_tool: FUNCTION,
                    },
                    required: ['name', 'language', 'voice', 'llm_model', 'system_prompt', 'initial_message', 'who_speaks_first', 'tools', 'end_call_tool'],
                  },
                },
                required: ['call', 'assistant'],
              },
            },
          },
        },
        ...REFUSED,
      },
    },
  },
  '/engine/calls/{id}/tools/{name}': {
    servers: ROOT,
    post: {
      summary: 'Runs one of the assistant’s mid-call tools, with the body as its arguments',
      description: 'Through vozgate’s guarded outbound client, with the tool’s headers and timeout; the call keeps the record (`tool_calls`).',
      tags: ['Engine API'],
      security: SECURITY,
      parameters: [CALL_ID, { name: 'name', in: 'path', required: true, schema: { type: 'string' }, description: 'The tool’s name.' }],
      requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', description: 'The tool’s parameters by name.' } } } },
      responses: {
        '200': {
          description: 'What the tool answered (or why it failed: `error`).',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: { status: { type: ['integer', 'null'] }, response: { type: ['string', 'null'] }, error: { type: ['string', 'null'] }, latency_ms: { type: 'number' } },
                required: ['status', 'response', 'error', 'latency_ms'],
              },
            },
          },
        },
        '400': error('The body is not a JSON object.'),
        ...REFUSED,
        '409': error('The call has ended.'),
      },
    },
  },
  '/engine/calls/{id}/events': {
    servers: ROOT,
    post: {
      summary: 'A transcript turn, or the end of the call',
      description:
        '`turn`: a line of the transcript, in order. `ended`: `end-call-tool`, `silence` and `engine-failed` hang the call up through the provider (it ends as ended_by_assistant or ended); `customer` says the caller hung up (ended_by_customer).',
      tags: ['Engine API'],
      security: SECURITY,
      parameters: [CALL_ID],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              oneOf: [
                {
                  type: 'object',
                  properties: { type: { const: 'turn' }, speaker: { enum: ['assistant', 'customer'] }, text: { type: 'string', minLength: 1, maxLength: ENGINE_MAX_TURN_CHARS } },
                  required: ['type', 'speaker', 'text'],
                },
                {
                  type: 'object',
                  properties: { type: { const: 'ended' }, reason: { enum: ['end-call-tool', 'silence', 'engine-failed', 'customer'] } },
                  required: ['type', 'reason'],
                },
              ],
            },
          },
        },
      },
      responses: {
        '204': { description: 'Taken.' },
        '400': error('The body is not a JSON object.'),
        ...REFUSED,
        '422': { description: `A bad event, or a turn past the call's ${ENGINE_MAX_TURNS} turns or ${ENGINE_MAX_TRANSCRIPT_CHARS} characters (errors.text).`, content: { 'application/json': { schema: { $ref: '#/components/schemas/ValidationError' } } } },
      },
    },
  },
};
