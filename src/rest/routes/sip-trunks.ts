import { Messages } from '../../errors';
import { isPlainObject } from '../coerce';
import type { JsonSchema } from '../openapi.components';
import { messageAnd } from '../openapi';
import type { Route } from './route';

/**
 * SIP trunks on the original platform's paths, as its MCP server sends them: the list as
 * `{data: [...]}`, one trunk bare, writes as `{message, data}`. A trunk is deleted with its
 * number's DELETE /user/phone-numbers/{id} (phone-numbers.ts): the trunk's id is its number's.
 */
const FIELDS = 'id sip_trunk_type phone_number sip_username has_password sip_address sip_calling_format inbound_authorization_type allowed_inbound_ips country_code outbound_proxy sip_domain nickname assistant_id';

const dataOnly = (inner: JsonSchema): JsonSchema => ({ type: 'object', properties: { data: inner }, required: ['data'] });

export const sipTrunkRoutes: Route[] = [
  {
    method: 'GET',
    path: '/user/phone-numbers/sip-trunks',
    summary: 'The account’s SIP trunks, oldest first (passwords never shown: has_password)',
    envelope: dataOnly,
    document: `query SipTrunks { sipTrunks { ${FIELDS} } }`,
    variables: () => ({}),
    respond: (data) => ({ body: { data: data.sipTrunks } }),
  },
  {
    method: 'GET',
    path: '/user/phone-numbers/sip-trunks/{id}',
    summary: 'One SIP trunk',
    document: `query SipTrunk($id: Int!) { sipTrunk(id: $id) { ${FIELDS} } }`,
    variables: (req) => ({ id: req.params.id }),
    respond: (data) => ({ body: data.sipTrunk }),
    notFound: Messages.sipTrunkNotFound,
  },
  {
    method: 'POST',
    path: '/user/phone-numbers/sip-trunks',
    summary: 'Create a SIP trunk: its number (or extension) becomes one of the account’s phone numbers, with the same id; the password is sealed at rest',
    status: 201,
    body: 'input',
    errors: ['PROVIDER_FAILURE'],
    envelope: messageAnd(),
    document: `mutation CreateSipTrunk($input: CreateSipTrunkInput!) { createSipTrunk(input: $input) { ${FIELDS} } }`,
    variables: (req) => ({ input: isPlainObject(req.body) ? req.body : {} }),
    rejectUnknownFields: true,
    respond: (data) => ({ body: { message: Messages.sipTrunkCreated, data: data.createSipTrunk } }),
  },
  {
    method: 'PUT',
    path: '/user/phone-numbers/sip-trunks/{id}',
    summary: 'Change a SIP trunk: only the fields sent change (the password only when one is sent; the type never)',
    body: 'input',
    errors: ['PROVIDER_FAILURE'],
    envelope: messageAnd(),
    document: `mutation UpdateSipTrunk($id: Int!, $input: UpdateSipTrunkInput!) { updateSipTrunk(id: $id, input: $input) { ${FIELDS} } }`,
    variables: (req) => ({ id: req.params.id, input: isPlainObject(req.body) ? req.body : {} }),
    rejectUnknownFields: true,
    respond: (data) => ({ body: { message: Messages.sipTrunkUpdated, data: data.updateSipTrunk } }),
    notFound: Messages.sipTrunkNotFound,
  },
];
