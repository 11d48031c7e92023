import type { JsonSchema } from './openapi.components';

/**
 * What Twilio requests of vozgate (design.md, "Telephony: Twilio"), described beside the REST
 * API: outside /api, signed with X-Twilio-Signature instead of a bearer token, served only
 * with TELEPHONY_PROVIDER=twilio (the messaging webhook: with SMS_PROVIDER=twilio).
 */
const form = (properties: Record<string, string>, required: string[]): JsonSchema => ({
  required: true,
  content: {
    'application/x-www-form-urlencoded': {
      schema: { type: 'object', properties: Object.fromEntries(Object.entries(properties).map(([name, description]) => [name, { type: 'string', description }])), required },
    },
  },
});

const ROOT = [{ url: '/', description: 'The service root (PUBLIC_URL), not /api.' }];
const CALL = { CallSid: 'Twilio’s call (CA...).', AccountSid: 'The Twilio account (AC...).', From: 'E.164.', To: 'E.164.' };
const SIGNATURE = {
  name: 'X-Twilio-Signature',
  in: 'header',
  required: true,
  schema: { type: 'string' },
  description: 'base64 HMAC-SHA1, keyed by TWILIO_AUTH_TOKEN, of PUBLIC_URL + path + query followed by each parameter’s name and value sorted by name. 403 when missing or wrong.',
};
const CALL_PARAMETER = {
  name: 'call',
  in: 'query',
  required: false,
  schema: { type: 'integer' },
  description: 'vozgate’s call id, on the callbacks of the calls vozgate places; without it the CallSid names the call (an incoming call’s callbacks, set on the number).',
};
const REFUSED = {
  '403': { description: 'A missing or wrong signature: nothing is read or changed.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
  '404': { description: 'Not served: TELEPHONY_PROVIDER is not twilio.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
};

function callback(summary: string, description: string, body: JsonSchema): JsonSchema {
  return {
    post: {
      summary,
      description,
      tags: ['Twilio'],
      security: [],
      parameters: [SIGNATURE, CALL_PARAMETER],
      requestBody: body,
      responses: { '204': { description: 'Taken; repeated and out-of-order callbacks change nothing twice.' }, ...REFUSED },
    },
  };
}

export const TWILIO_OPENAPI_PATHS: Record<string, JsonSchema> = {
  '/telephony/twilio/voice': {
    servers: ROOT,
    post: {
      summary: 'An incoming call: set as the voice URL ("A call comes in", HTTP POST) of each Twilio number',
      description:
        'The inbound assistant of the called number answers: an inbound call is created and the TwiML connects its media stream. ' +
        'A number no inbound assistant answers gets `<Reject reason="rejected"/>`; an account at PLAN_MAX_PARALLEL_CALLS or without balance `<Reject reason="busy"/>`. ' +
        'Asked again for the same CallSid, it answers the same TwiML and creates no second call.',
      tags: ['Twilio'],
      security: [],
      parameters: [SIGNATURE],
      requestBody: form({ ...CALL, CallStatus: 'ringing.', Direction: 'inbound.' }, ['CallSid', 'From', 'To']),
      responses: {
        '200': {
          description: 'TwiML.',
          content: {
            'text/xml': {
              schema: { type: 'string' },
              example:
                '<Response><Connect><Stream url="wss://vozgate.example.com/telephony/twilio/media"><Parameter name="call_id" value="42"/><Parameter name="token" value="..."/></Stream></Connect></Response>',
            },
          },
        },
        ...REFUSED,
      },
    },
  },
  '/telephony/twilio/status': {
    servers: ROOT,
    ...callback(
      'A call’s status: the StatusCallback of the calls vozgate places; set as "Call status changes" on each number for incoming calls',
      'queued/initiated -> initiated, ringing, in-progress, completed (with CallDuration; `ended`/`ended_by_assistant` when vozgate hung up), busy, no-answer, failed, canceled -> failed.',
      form({ ...CALL, CallStatus: 'queued, initiated, ringing, in-progress, completed, busy, no-answer, failed or canceled.', CallDuration: 'Seconds, once completed.', AnsweredBy: 'With AMD.', ErrorCode: 'On failed.' }, ['CallSid', 'CallStatus']),
    ),
  },
  '/telephony/twilio/amd': {
    servers: ROOT,
    ...callback(
      'Answering machine detection (AsyncAmdStatusCallback)',
      'AnsweredBy human -> human; machine_start, machine_end_beep, machine_end_silence, machine_end_other, fax -> machine; unknown -> unknown. Taken once the call is answered.',
      form({ ...CALL, AnsweredBy: 'human, machine_*, fax or unknown.' }, ['CallSid', 'AnsweredBy']),
    ),
  },
  '/telephony/twilio/transfer': {
    servers: ROOT,
    post: {
      summary: 'A transferred call’s leg ended (the action of the Dial that transfer_call gives the call)',
      description:
        'DialCallStatus and DialCallDuration become the call’s `transfer_status` and `transfer_duration` (its minutes charged like a call’s to that number); the answer hangs the call up, which then ends as `transferred`. Checked with X-Twilio-Signature like every callback.',
      tags: ['Twilio'],
      security: [],
      parameters: [SIGNATURE, { name: 'call', in: 'query', required: true, schema: { type: 'integer' }, description: 'The call vozgate transferred.' }],
      requestBody: form(
        { ...CALL, DialCallStatus: 'completed, answered, busy, no-answer, failed or canceled.', DialCallDuration: 'Seconds the transferred leg lasted.', DialCallSid: 'CA... of that leg.' },
        ['CallSid', 'DialCallStatus'],
      ),
      responses: {
        '200': { description: 'TwiML that ends the call.', content: { 'text/xml': { schema: { type: 'string' }, example: '<Response><Hangup/></Response>' } } },
        ...REFUSED,
      },
    },
  },
  '/telephony/twilio/transfer-leg': {
    servers: ROOT,
    ...callback(
      'A warm transfer’s leg to the person (the StatusCallback of the call vozgate places to the transfer number)',
      'completed -> the call’s `transfer_status` completed and `transfer_duration` its CallDuration (charged like a call’s minutes to that number); busy, no-answer, failed or canceled -> the transfer is over and the assistant comes back to the caller on a media stream of its own (`resume=transfer`), telling them nobody answered. Callbacks of another call’s sid change nothing.',
      form({ ...CALL, CallStatus: 'in-progress, completed, busy, no-answer, failed or canceled.', CallDuration: 'Seconds, once completed.' }, ['CallSid', 'CallStatus']),
    ),
  },
  '/telephony/twilio/recording': {
    servers: ROOT,
    ...callback(
      'A call’s recording (RecordingStatusCallback, when the assistant has record_call)',
      'A `completed` recording’s RecordingUrl becomes the call’s `recording_url`.',
      form({ ...CALL, RecordingSid: 'RE...', RecordingUrl: 'Twilio’s URL of the recording.', RecordingStatus: 'in-progress, completed or absent.' }, ['CallSid', 'RecordingUrl']),
    ),
  },
  '/telephony/twilio/messaging': {
    servers: ROOT,
    post: {
      summary: 'An incoming SMS or WhatsApp message: set as the messaging webhook ("A message comes in", HTTP POST) of each Twilio number and WhatsApp sender',
      description:
        'Served with SMS_PROVIDER=twilio (404 otherwise), signed with TWILIO_AUTH_TOKEN like the voice callbacks. For a number whose inbound assistant (the one that answers its calls) exists, the message opens or continues ' +
        'the sender’s open conversation (`type` sms, or whatsapp for `whatsapp:` addresses; `customer_phone` E.164) and is stored once per MessageSid (a retried or raced delivery stores and answers nothing more). ' +
        'The answer is an empty TwiML Response at once; the reply is written on the job queue and sent through the Messages API (to the `whatsapp:` address for WhatsApp), charged like an SMS and counted in the conversation’s `total_cost`. ' +
        'An opt-out keyword (STOP, STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT, OPTOUT, REVOKE, SAIR, PARAR, CANCELAR, DESCADASTRAR, BAJA) puts the sender on the do-not-call list, confirmed once (not when OptOutType says Twilio answered it); ' +
        'START or UNSTOP takes a sender who opted out by text off it. A sender on the list, a conversation a person has taken over (disable-ai) or a closed one gets no reply; the message is stored. ' +
        'A number no inbound assistant answers: the same empty Response, nothing stored.',
      tags: ['Twilio'],
      security: [],
      parameters: [SIGNATURE],
      requestBody: form(
        {
          MessageSid: 'Twilio’s message (SM... or MM...): the key that makes a retried delivery a no-op.',
          AccountSid: 'The Twilio account (AC...).',
          From: 'The customer: E.164, or whatsapp:+E164.',
          To: 'The account’s number: E.164, or whatsapp:+E164.',
          Body: 'The text (at most 2,000 characters kept).',
          NumMedia: 'Attached media (not read).',
          OptOutType: 'STOP, START or HELP when Twilio’s Advanced Opt-Out handled the keyword and answered it itself.',
        },
        ['MessageSid', 'From', 'To'],
      ),
      responses: {
        '200': { description: 'Empty TwiML: the reply goes out through the Messages API.', content: { 'text/xml': { schema: { type: 'string' }, example: '<?xml version="1.0" encoding="UTF-8"?><Response/>' } } },
        '403': REFUSED['403'],
        '404': { description: 'Not served: SMS_PROVIDER is not twilio.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
      },
    },
  },
};
