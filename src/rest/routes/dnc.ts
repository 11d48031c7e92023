import { Messages } from '../../errors';
import { isPlainObject } from '../coerce';
import { messageAnd, messageOnly } from '../openapi';
import type { Route } from './route';

const DNC_FIELDS = `fragment DncNumberFields on DncNumber { phone_number created_at }`;

/** The account's do-not-call list. */
export const dncRoutes: Route[] = [
  {
    method: 'GET',
    path: '/user/dnc',
    summary: 'The account’s do-not-call list',
    document: `query DncNumbers { dncNumbers { ...DncNumberFields } } ${DNC_FIELDS}`,
    variables: () => ({}),
    respond: (data) => ({ body: data.dncNumbers }),
  },
  {
    method: 'POST',
    path: '/user/dnc',
    summary: 'Add a number to the do-not-call list: no call and no SMS will reach it',
    status: 201,
    body: ['phone_number'],
    envelope: messageAnd(),
    document: `mutation AddDncNumber($phone_number: String!) { addDncNumber(phone_number: $phone_number) { ...DncNumberFields } } ${DNC_FIELDS}`,
    variables: (req) => ({ phone_number: isPlainObject(req.body) ? req.body.phone_number : undefined }),
    respond: (data) => ({ body: { message: Messages.dncAdded, data: data.addDncNumber } }),
  },
  {
    method: 'DELETE',
    path: '/user/dnc/{phone_number}',
    summary: 'Take a number off the do-not-call list',
    envelope: messageOnly,
    document: `mutation RemoveDncNumber($phone_number: String!) { removeDncNumber(phone_number: $phone_number) }`,
    variables: (req) => ({ phone_number: req.params.phone_number }),
    respond: () => ({ body: { message: Messages.dncRemoved } }),
    notFound: Messages.dncNotFound,
  },
];
