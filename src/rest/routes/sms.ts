import { Messages } from '../../errors';
import { messageAnd } from '../openapi';
import { IDEMPOTENCY_HEADER, header, type Route } from './route';

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
      sendSms(input: $input, idempotency_key: $idempotency_key) {
        id phone_number_id to body user_id segments segment_price total_cost status sms_sid created_at updated_at
      }
    }`,
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
    summary: 'The account: name, email and balance',
    envelope: () => ({
      type: 'object',
      properties: { name: { type: 'string' }, email: { type: ['string', 'null'] }, total_balance: { type: 'number' } },
      required: ['name', 'email', 'total_balance'],
    }),
    document: `query Me { me { name email balance } }`,
    variables: () => ({}),
    respond: (data) => ({ body: { name: data.me.name, email: data.me.email, total_balance: data.me.balance } }),
  },
];

/** The account's numbers, as a bare array (the original platform's clients call the second path). */
export const phoneNumberRoutes: Route[] = ['/user/phone-numbers', '/user/phone-numbers/all'].map((path) => ({
  method: 'GET',
  path,
  summary: 'List the account’s phone numbers',
  document: `query PhoneNumbers { phoneNumbers { id phone_number sms_capable expires_at assistant_id } }`,
  variables: () => ({}),
  respond: (data) => ({ body: data.phoneNumbers }),
}));
