import { Messages } from '../../errors';
import { messageAnd } from '../openapi';
import { PHONE_NUMBER_FIELDS } from './phone-numbers';
import { IDEMPOTENCY_HEADER, header, queryVariables, type Route } from './route';

const SMS_FIELDS = `fragment SmsFields on Sms { id phone_number_id to body user_id segments segment_price total_cost status sms_sid created_at updated_at }`;

export const smsRoutes: Route[] = [
  {
    method: 'POST',
    path: '/user/sms',
    summary: 'Send an SMS charged to the balance',
    body: 'input',
    headers: [IDEMPOTENCY_HEADER],
    errors: ['INSUFFICIENT_BALANCE', 'FORBIDDEN', 'CONFLICT', 'PROVIDER_FAILURE'],
    envelope: messageAnd(),
    otherResponses: (sms) => ({
      202: {
        description: 'The provider’s answer was lost: the message is `sending` until the provider is asked what became of it.',
        content: { 'application/json': { schema: messageAnd()(sms) } },
      },
    }),
    document: `mutation SendSms($input: SendSmsInput!, $idempotency_key: String) {
      sendSms(input: $input, idempotency_key: $idempotency_key) { ...SmsFields }
    } ${SMS_FIELDS}`,
    variables: (req) => ({ input: req.body, idempotency_key: header(req, 'idempotency-key') }),
    // A message whose outcome the provider left unknown is still `sending`: accepted, not yet done.
    respond: (data) =>
      data.sendSms.status === 'sending'
        ? { status: 202, body: { message: Messages.smsPending, data: data.sendSms } }
        : { body: { message: Messages.smsSent, data: data.sendSms } },
  },
  {
    method: 'GET',
    path: '/user/me',
    summary: 'The account: name, email ("" when the account has none), balance and its currency (ISO 4217)',
    envelope: () => ({
      type: 'object',
      properties: { name: { type: 'string' }, email: { type: 'string' }, total_balance: { type: 'number' }, currency: { type: 'string' } },
      required: ['name', 'email', 'total_balance', 'currency'],
    }),
    document: `query Me { me { name email balance currency } }`,
    variables: () => ({}),
    // The original platform's clients read email as a string (the MCP server's schema requires
    // one); an account made without --email has none, which is "" here.
    respond: (data) => ({ body: { name: data.me.name, email: data.me.email ?? '', total_balance: data.me.balance, currency: data.me.currency } }),
  },
];

const PHONE_NUMBERS = `query PhoneNumbers($type: String) { phoneNumbers(type: $type) { ...PhoneNumberFields } } ${PHONE_NUMBER_FIELDS}`;

/**
 * The account's numbers: a bare array, and `{data: [...]}` at the path the original
 * platform's clients read that shape from; the numbers an assistant can take at the
 * assistants' lookup path.
 */
export const phoneNumberRoutes: Route[] = [
  {
    method: 'GET',
    path: '/user/phone-numbers',
    summary: 'List the account’s phone numbers',
    document: PHONE_NUMBERS,
    variables: () => ({}),
    respond: (data) => ({ body: data.phoneNumbers }),
  },
  {
    method: 'GET',
    path: '/user/phone-numbers/all',
    summary: 'List the account’s phone numbers, under data',
    envelope: (list) => ({ type: 'object', properties: { data: list }, required: ['data'] }),
    document: PHONE_NUMBERS,
    variables: () => ({}),
    respond: (data) => ({ body: { data: data.phoneNumbers } }),
  },
  {
    method: 'GET',
    path: '/user/assistants/phone-numbers',
    summary: 'The numbers an assistant can take: unexpired; with type=inbound, not answered by an inbound assistant already',
    query: ['type'],
    document: PHONE_NUMBERS,
    variables: (req) => queryVariables(req.query, ['type']),
    respond: (data) => ({ body: data.phoneNumbers }),
  },
];
