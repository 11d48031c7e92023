import {
  Kind,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  parse,
  typeFromAST,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLInputType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { HttpStatusByCode, type ErrorCode } from '../errors';
import { MAX_JSON_DEPTH, MAX_LIST_ITEMS } from '../graphql/input-guard';
import { CALL_STATUSES, CALL_TYPES } from '../modules/calls/call.entity';
import { EVENT_CATALOGUE } from '../modules/events/event.examples';
import { hoistComponents, named, orNull, type JsonSchema } from './openapi.components';
import { ENGINE_OPENAPI_PATHS, ENGINE_SECURITY_SCHEME } from './openapi.engine';
import { EXAMPLES, INPUT_RULES, OPTIONAL_OUTPUTS, OUTPUT_RULES, TAGS, tagOf } from './openapi.rules';
import { TWILIO_OPENAPI_PATHS } from './openapi.twilio';
import type { Route } from './routes/route';

// The OpenAPI 3.1 description of the REST API, generated from the route table (paths,
// methods, which variables come from the path, the query and the body) and from the GraphQL
// schema the routes run against (the types of bodies and answers), with the limits the
// services enforce taken from the same constants. One source of truth: a route cannot be
// served without being described.

const ERROR_DESCRIPTIONS: Partial<Record<number, string>> = {
  400: 'A malformed request.',
  401: 'No valid bearer token.',
  402: 'The balance does not cover it.',
  403: 'Not allowed (an SMS sender without SMS, or with an expired subscription).',
  404: 'Not found, or another account’s.',
  405: 'The path exists with other methods (see Allow).',
  409: 'A conflict: an Idempotency-Key reused with another request, or a call still in flight.',
  413: 'The body is over MAX_BODY_BYTES.',
  415: 'The body is not JSON.',
  422: 'Validation failed: `errors` maps each field to its messages.',
  429: 'Over the token’s rate limit: retry after `retry_after` seconds.',
  500: 'An unexpected failure (logged with the request id).',
  502: 'The provider failed: `error` has its detail.',
  503: 'The database is unreachable, or (a new call) this process is over its load bound (VOICE_MAX_LOAD_DELAY_MS): retry after Retry-After.',
};

function scalarSchema(name: string): JsonSchema {
  switch (name) {
    case 'Int':
      return { type: 'integer' };
    case 'Float':
      return { type: 'number' };
    case 'Boolean':
      return { type: 'boolean' };
    case 'JSONObject':
      // Any keys: without it, generated clients type the object as one that has none.
      return { type: 'object', additionalProperties: true, description: `A free-form JSON object (at most ${MAX_JSON_DEPTH} levels deep).` };
    default:
      return { type: 'string' };
  }
}

interface InputPlace {
  /** The field or argument name, and its owner: the input type, or the root field of an argument. */
  field?: string;
  owner?: string;
  /** Whether GraphQL allows null here. */
  nullable: boolean;
  /** Whether to give the fields' examples (bodies and path parameters: "Try it out" sends them). */
  examples: boolean;
}

/** An input type as JSON Schema, with the services' rules and, where asked, examples. */
function inputSchema(type: GraphQLInputType, place: InputPlace): JsonSchema {
  if (isNonNullType(type)) return inputSchema(type.ofType, { ...place, nullable: false });
  let schema: JsonSchema;
  if (isListType(type)) {
    schema = { type: 'array', items: inputSchema(type.ofType, { nullable: false, examples: place.examples }), maxItems: MAX_LIST_ITEMS };
  } else if (isInputObjectType(type)) {
    const fields = Object.values(type.getFields());
    const properties = Object.fromEntries(
      fields.map((f) => [
        f.name,
        { ...(f.description ? { description: f.description } : {}), ...inputSchema(f.type, { field: f.name, owner: type.name, nullable: true, examples: place.examples }) },
      ]),
    );
    schema = { type: 'object', properties, required: fields.filter((f) => isNonNullType(f.type)).map((f) => f.name), additionalProperties: true };
    if ((schema.required as string[]).length === 0) delete schema.required;
    const example = exampleOf(schema);
    if (place.examples && example) schema.example = example;
  } else if (isEnumType(type)) {
    schema = { type: 'string', enum: type.getValues().map((v) => v.name) };
  } else {
    schema = scalarSchema(type.name);
  }
  const { field, owner } = place;
  const rule = field ? (INPUT_RULES[`${owner}.${field}`] ?? INPUT_RULES[field]) : undefined;
  if (rule) schema = { ...schema, ...rule };
  const example = field && place.examples ? (EXAMPLES[`${owner}.${field}`] ?? EXAMPLES[field]) : undefined;
  if (example !== undefined) schema.example = example;
  return place.nullable ? orNull(schema) : schema;
}

/**
 * An object's example, made of its fields' examples: none when a required field has none
 * (Swagger then makes one up from the types, as it would without).
 */
function exampleOf(schema: JsonSchema): Record<string, unknown> | undefined {
  const properties = Object.entries(schema.properties as Record<string, JsonSchema>);
  const given = properties.filter(([, property]) => property.example !== undefined);
  if (given.length === 0 || ((schema.required as string[] | undefined) ?? []).some((name) => !given.some(([field]) => field === name))) return undefined;
  return Object.fromEntries(given.map(([field, property]) => [field, property.example]));
}

/**
 * The fragments shared as components: `LeadFields` is the `Lead` schema wherever a route
 * selects it.
 */
const COMPONENT_FRAGMENT = /^(\w+)Fields$/;

/** The JSON Schema of what a selection set answers from an output type. */
function selectionSchema(type: GraphQLOutputType, selection: SelectionSetNode | undefined, fragments: Map<string, FragmentDefinitionNode>): JsonSchema {
  if (isNonNullType(type)) return selectionSchema(type.ofType, selection, fragments);
  if (isListType(type)) return { type: 'array', items: selectionSchema(type.ofType, selection, fragments) };
  const objectType = getNamedType(type);
  if (!isObjectType(objectType) || !selection) return isScalarType(objectType) ? scalarSchema(objectType.name) : { type: 'string' };
  const properties: Record<string, JsonSchema> = {};
  const optional = new Set<string>();
  const shared: JsonSchema[] = [];
  const visit = (set: SelectionSetNode) => {
    for (const node of set.selections) {
      if (node.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(node.name.value)!;
        const component = COMPONENT_FRAGMENT.exec(fragment.name.value)?.[1];
        if (component) {
          const schema = selectionSchema(objectType, fragment.selectionSet, fragments);
          shared.push(named(component, objectType.description ? { description: objectType.description, ...schema } : schema));
        } else visit(fragment.selectionSet);
      } else if (node.kind === Kind.INLINE_FRAGMENT) visit(node.selectionSet);
      else {
        const field = objectType.getFields()[node.name.value];
        const rule = OUTPUT_RULES[`${objectType.name}.${field.name}`];
        const schema = { ...selectionSchema(field.type, node.selectionSet, fragments), ...rule };
        const withNull = isNonNullType(field.type) ? schema : orNull(schema);
        const name = node.alias?.value ?? node.name.value;
        properties[name] = field.description && !rule?.description ? { ...withNull, description: field.description } : withNull;
        if (OPTIONAL_OUTPUTS.has(`${objectType.name}.${field.name}`)) optional.add(name);
      }
    }
  };
  visit(selection);
  const own = { type: 'object', properties, required: Object.keys(properties).filter((name) => !optional.has(name)) };
  if (shared.length === 0) return own;
  if (shared.length === 1 && Object.keys(properties).length === 0) return shared[0];
  return { allOf: Object.keys(properties).length ? [...shared, own] : shared };
}

const errorResponse = (status: number) => ({
  description: ERROR_DESCRIPTIONS[status] ?? 'An error.',
  content: { 'application/json': { schema: { $ref: status === 422 ? '#/components/schemas/ValidationError' : '#/components/schemas/Error' } } },
  ...(status === 429 || status === 503 ? { headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds to wait.' } } } : {}),
  ...(status === 401 ? { headers: { 'WWW-Authenticate': { schema: { type: 'string', const: 'Bearer' } } } } : {}),
});

/** One route's operation. */
export function describeRoute(schema: GraphQLSchema, route: Route): JsonSchema {
  const document = parse(route.document);
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
  const fragments = new Map(
    document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
  );
  const variables = new Map(
    (operation.variableDefinitions ?? []).map((v) => [v.variable.name.value, typeFromAST(schema, v.type as never) as GraphQLInputType]),
  );
  const root = operation.operation === 'query' ? schema.getQueryType()! : schema.getMutationType()!;
  const rootNode = operation.selectionSet.selections[0] as FieldNode;
  const pathParams = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
  const owner = rootNode.name.value;
  const parameter = (name: string, where: 'path' | 'query') => {
    const schema = inputSchema(variables.get(name)!, { field: name, owner, nullable: false, examples: where === 'path' });
    // Swagger fills "Try it out" in from the parameter's own example.
    return { name, in: where, required: where === 'path', schema, ...(schema.example !== undefined ? { example: schema.example } : {}) };
  };
  const parameters = [...pathParams.map((name) => parameter(name, 'path')), ...(route.query ?? []).map((name) => parameter(name, 'query'))];

  const data = selectionSchema(root.getFields()[rootNode.name.value].type, rootNode.selectionSet, fragments);
  const status = route.status ?? 200;
  const responses: Record<string, unknown> = {
    [status]: {
      description: route.summary,
      ...(route.responseHeaders ? { headers: route.responseHeaders } : {}),
      content: route.csv
        ? { 'text/csv': { schema: { type: 'string', description: 'UTF-8, RFC 4180 (CRLF, quoted where needed), a header row; a text cell starting with = + - @ gets a leading quote (OWASP CSV injection).' } } }
        : { 'application/json': { schema: route.envelope ? route.envelope(data) : data } },
    },
  };
  const errors = new Set<number>([401, 429, 500, 503, ...(route.errors ?? []).map((code: ErrorCode) => HttpStatusByCode[code])]);
  if (pathParams.length || route.notFound) errors.add(404);
  if (parameters.length || route.body) errors.add(422);
  if (route.body) [413, 415].forEach((s) => errors.add(s));
  for (const code of [...errors].sort()) responses[code] = errorResponse(code);
  Object.assign(responses, route.otherResponses?.(data) ?? {});

  let requestBody: unknown;
  if (route.body === 'input') {
    requestBody = { required: true, content: { 'application/json': { schema: inputSchema(variables.get('input')!, { nullable: false, examples: true }) } } };
    if (route.multipart) {
      const form = { type: 'object', properties: route.multipart.fields, required: [route.multipart.file, ...Object.keys(route.multipart.fields).filter((name) => name === 'campaign_id')] };
      requestBody = { required: true, content: { 'multipart/form-data': { schema: form }, ...(requestBody as { content: object }).content } };
    }
  } else if (route.body) {
    const fields = route.body.map((name) => [name, variables.get(name)!] as const);
    const body: JsonSchema = {
      type: 'object',
      properties: Object.fromEntries(fields.map(([name, type]) => [name, inputSchema(type, { field: name, owner, nullable: false, examples: true })])),
      required: fields.filter(([, type]) => isNonNullType(type)).map(([name]) => name),
    };
    const example = exampleOf(body);
    requestBody = { required: true, content: { 'application/json': { schema: example ? { ...body, example } : body } } };
  }
  return {
    operationId: `${route.method.toLowerCase()}${route.path.replace(/\{(\w+)\}/g, 'By_$1').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
    summary: route.summary,
    tags: [tagOf(route.path)],
    ...(route.headers ? { parameters: [...parameters, ...route.headers] } : parameters.length ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses,
    'x-graphql-operation': operation.name?.value,
  };
}

const CALL_WEBHOOK: JsonSchema = {
  type: 'object',
  description: 'POSTed to an assistant’s webhook_url when one of its calls ends, signed as Standard Webhooks say.',
  properties: {
    event: { const: 'call.finished' },
    id: { type: 'integer' },
    type: { enum: [...CALL_TYPES] },
    assistant_id: { type: ['integer', 'null'] },
    assistant_name: { type: ['string', 'null'] },
    customer_phone: { type: 'string' },
    assistant_phone: { type: 'string' },
    duration: { type: 'integer', description: 'Seconds.' },
    status: { enum: [...CALL_STATUSES] },
    answered_by: { enum: ['human', 'machine', 'unavailable', 'unknown', null] },
    extracted_variables: { type: 'object' },
    input_variables: { type: 'object' },
    evaluation: { type: ['object', 'null'] },
    transcript: { type: 'string' },
    recording_url: { type: ['string', 'null'], description: 'Only with include_recording_in_webhook.' },
    carrier_cost: { type: 'number' },
    total_cost: { type: 'number' },
    created_at: { type: 'string' },
    finished_at: { type: ['string', 'null'] },
    lead: { type: ['object', 'null'], properties: { id: { type: 'integer' }, phone_number: { type: 'string' }, variables: { type: 'object' }, status: { type: 'string' } } },
    campaign: { type: ['object', 'null'], properties: { id: { type: 'integer' }, name: { type: 'string' } } },
  },
  required: ['event', 'id', 'type', 'customer_phone', 'assistant_phone', 'duration', 'status', 'transcript', 'created_at', 'finished_at', 'lead', 'campaign'],
};

const SIGNATURE_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'x-famulor-signature'].map((name) => ({
  name,
  in: 'header',
  required: true,
  schema: { type: 'string' },
  description:
    name === 'x-famulor-signature'
      ? '`sha256=` + hex HMAC-SHA256 of the raw body, keyed by the secret as given (whsec_...), as the original platform’s clients verify'
      : name === 'webhook-id'
        ? 'Standard Webhooks: the same on every attempt of one delivery'
        : 'Standard Webhooks',
}));

/** A JSON schema that an example satisfies: its keys, with their types (null allowed where the example has it). */
function schemaOf(example: unknown): JsonSchema {
  if (example === null) return {};
  if (Array.isArray(example)) return { type: 'array' };
  if (typeof example === 'object') {
    return { type: 'object', properties: Object.fromEntries(Object.entries(example as object).map(([key, value]) => [key, schemaOf(value)])) };
  }
  return { type: typeof example === 'number' ? 'number' : typeof example === 'boolean' ? 'boolean' : 'string' };
}

/** Every event type of the account webhook endpoints (POST /user/webhooks), with an example. */
function endpointEvents(): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(EVENT_CATALOGUE).map(([type, { summary, data }]) => [
      `event ${type}`,
      {
        post: {
          summary: `${type}: ${summary}`,
          description: 'Sent to the account’s webhook endpoints that subscribed to this type.',
          parameters: SIGNATURE_HEADERS,
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: { type: { type: 'string', const: type }, timestamp: { type: 'string', description: 'ISO 8601, UTC.' }, data: schemaOf(data) },
                  required: ['type', 'timestamp', 'data'],
                },
                example: { type, timestamp: '2026-11-22T14:04:31.512Z', data },
              },
            },
          },
          responses: { '200': { description: 'Any 2xx acknowledges it; 410 turns the endpoint off; other answers are retried.' } },
        },
      },
    ]),
  );
}

/** The whole document. */
export function buildOpenApi(schema: GraphQLSchema, routes: Route[], serverUrl = '/api'): JsonSchema {
  const described: Record<string, Record<string, unknown>> = {};
  for (const route of routes) (described[route.path] ??= {})[route.method.toLowerCase()] = describeRoute(schema, route);
  const shared: Record<string, JsonSchema> = {};
  const paths = hoistComponents(described, shared);
  return freeFormExplicit({
    openapi: '3.1.0',
    info: {
      title: 'vozgate REST API',
      version: '1.0.0',
      description:
        'The documented REST API of the voice-assistant platform. Every route runs a GraphQL operation (`x-graphql-operation`) of `/graphql`. ' +
        'Integer fields also accept numeric strings, booleans 0/1/"true"/"false", and an object field [] as {}, as PHP clients send them.',
    },
    servers: [{ url: serverUrl }],
    security: [{ bearer: [] }],
    tags: TAGS,
    paths: { ...paths, ...TWILIO_OPENAPI_PATHS, ...ENGINE_OPENAPI_PATHS },
    webhooks: {
      'call.finished': {
        post: {
          summary: 'A call of the assistant ended (the assistant’s post-call webhook)',
          parameters: SIGNATURE_HEADERS,
          requestBody: { required: true, content: { 'application/json': { schema: CALL_WEBHOOK } } },
          responses: { '200': { description: 'Any 2xx acknowledges it; 410 turns the webhook off; other answers are retried.' } },
        },
      },
      ...endpointEvents(),
    },
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'A token from `npm run cli -- token:create` (vzg_...).' },
        callToken: ENGINE_SECURITY_SCHEME,
      },
      schemas: {
        Error: {
          type: 'object',
          properties: {
            message: { type: 'string', description: 'The spec’s Portuguese message.' },
            code: { type: 'string', enum: Object.keys(HttpStatusByCode), description: 'The GraphQL extensions.code.' },
            error: { type: 'string', description: 'The provider’s detail (502).' },
            retry_after: { type: 'integer', description: 'Seconds (429).' },
          },
          required: ['message', 'code'],
        },
        ValidationError: {
          allOf: [
            { $ref: '#/components/schemas/Error' },
            { type: 'object', properties: { errors: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } } }, required: ['errors'] },
          ],
        },
        ...Object.fromEntries(Object.entries(shared).sort(([a], [b]) => a.localeCompare(b))),
      },
    },
  });
}

/**
 * Says of every object schema that names none of its keys that any key is allowed. JSON
 * Schema means that already, but generated clients (openapi-typescript) read such an object
 * as one with no keys at all, so that `variables.customer_name` would not type-check.
 */
function freeFormExplicit<T>(node: T): T {
  if (Array.isArray(node)) return node.map(freeFormExplicit) as T;
  if (node === null || typeof node !== 'object') return node;
  const copy: Record<string, unknown> = Object.fromEntries(
    // Examples are data, not schemas.
    Object.entries(node).map(([key, value]) => [key, key === 'example' || key === 'examples' ? value : freeFormExplicit(value)]),
  );
  const types = Array.isArray(copy.type) ? copy.type : [copy.type];
  if (types.includes('object') && copy.properties === undefined && copy.additionalProperties === undefined) copy.additionalProperties = true;
  return copy as T;
}

/** `{message, data}` around what the operation answers. */
export const messageAnd = (data?: JsonSchema): ((inner: JsonSchema) => JsonSchema) => (inner) => ({
  type: 'object',
  properties: { message: { type: 'string' }, data: data ?? inner },
  required: ['message', 'data'],
});

/** Just `{message}`. */
export const messageOnly = (): JsonSchema => ({ type: 'object', properties: { message: { type: 'string' } }, required: ['message'] });
