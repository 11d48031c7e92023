import { Messages } from '../../errors';
import { isPlainObject } from '../coerce';
import { messageAnd, messageOnly } from '../openapi';
import { queryVariables, type Route } from './route';

/** A number as every route answers it (the list's too, in sms.ts). */
export const PHONE_NUMBER_FIELDS = `fragment PhoneNumberFields on PhoneNumber { id phone_number sms_capable whatsapp expires_at assistant_id nickname monthly_price renews }`;

/**
 * Numbers bought and released through the telephony provider, at the paths the original
 * platform's clients use (its MCP server's search, purchase, update and release tools).
 */
export const phoneNumberPurchaseRoutes: Route[] = [
  {
    method: 'GET',
    path: '/user/phone-numbers/search',
    summary: 'Numbers the telephony provider offers in a country (country_code, required), optionally containing some digits (contains), each with its monthly price',
    query: ['country_code', 'contains'],
    errors: ['PROVIDER_FAILURE'],
    document: `query AvailablePhoneNumbers($country_code: String, $contains: String) {
      availablePhoneNumbers(country_code: $country_code, contains: $contains) { phone_number friendly_name locality region iso_country capabilities { voice sms mms } monthly_price }
    }`,
    variables: (req) => queryVariables(req.query, ['country_code', 'contains']),
    respond: (data) => ({ body: data.availablePhoneNumbers }),
  },
  {
    method: 'POST',
    path: '/user/phone-numbers/purchase',
    summary: 'Buy a number: its voice and SMS webhooks point at this service, its first month is charged to the balance, and it renews monthly',
    status: 201,
    body: 'input',
    errors: ['INSUFFICIENT_BALANCE', 'PROVIDER_FAILURE'],
    envelope: messageAnd(),
    document: `mutation PurchasePhoneNumber($input: PurchasePhoneNumberInput!) { purchasePhoneNumber(input: $input) { ...PhoneNumberFields } } ${PHONE_NUMBER_FIELDS}`,
    variables: (req) => ({ input: req.body }),
    rejectUnknownFields: true,
    respond: (data) => ({ body: { message: Messages.phoneNumberPurchased, data: data.purchasePhoneNumber } }),
  },
  {
    method: 'PUT',
    path: '/user/phone-numbers/{id}',
    summary: 'Name a number (nickname; null removes it)',
    body: 'input',
    envelope: messageAnd(),
    document: `mutation UpdatePhoneNumber($id: Int!, $input: UpdatePhoneNumberInput!) { updatePhoneNumber(id: $id, input: $input) { ...PhoneNumberFields } } ${PHONE_NUMBER_FIELDS}`,
    variables: (req) => ({ id: req.params.id, input: isPlainObject(req.body) ? req.body : {} }),
    rejectUnknownFields: true,
    respond: (data) => ({ body: { message: Messages.phoneNumberUpdated, data: data.updatePhoneNumber } }),
    notFound: Messages.phoneNumberNotFound,
  },
  {
    method: 'DELETE',
    path: '/user/phone-numbers/{id}',
    summary: 'Release a number at the provider (a SIP trunk\'s id deletes the trunk: nothing to release, the number is the carrier\'s): its assistants lose it, running campaigns it leaves without a number pause (campaign.status_changed)',
    errors: ['PROVIDER_FAILURE'],
    envelope: messageOnly,
    document: `mutation ReleasePhoneNumber($id: Int!) { releasePhoneNumber(id: $id) }`,
    variables: (req) => ({ id: req.params.id }),
    respond: () => ({ body: { message: Messages.phoneNumberReleased } }),
    notFound: Messages.phoneNumberNotFound,
  },
];
