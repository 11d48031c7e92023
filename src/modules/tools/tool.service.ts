import { DomainError, FieldErrorCollector, FieldMessages, Messages, NotFoundError } from '../../errors';
import { checkHttpUrl, checkIntRange, checkLength, checkOneOf } from '../../lib/checks';
import { checkCalledLater } from '../../lib/outbound';
import type { SecretBox } from '../../lib/secrets';
import { Account } from '../accounts/account.entity';
import type { Scope } from '../scope';
import { MAX_SPEAK_DURING, MAX_TOOL_NAME, TOOL_METHODS, TOOL_NAME_PATTERN, TOOL_PARAMETER_TYPES, Tool, type ToolHeader, type ToolMethod, type ToolParameter } from './tool.entity';
import type { CreateToolInput, ToolHeaderInput, ToolParameterInput, UpdateToolInput } from './tool.inputs';

export interface ToolScope extends Scope {
  secrets: SecretBox;
}

const PARAMETER_NAME = /^[A-Za-z][A-Za-z_]*$/;
/** RFC 9110 `token`. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** What Node's HTTP client accepts in a header value: no CR, LF, NUL or other controls. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** Headers that the platform's HTTP client must set itself (framing, routing, connection management). */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'proxy-connection',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'http2-settings',
]);
const MAX_HEADERS = 20;
const MAX_HEADER_NAME = 256;
const MAX_HEADER_VALUE = 4096;
const MAX_PARAMETERS = 32;
const TIMEOUT_SECONDS = [1, 30] as const;
const TOOL_NAME = new RegExp(TOOL_NAME_PATTERN);
/** The limits above, for the API's description. */
export const TOOL_RULES = {
  maxHeaders: MAX_HEADERS,
  maxParameters: MAX_PARAMETERS,
  timeout: TIMEOUT_SECONDS,
  name: { pattern: TOOL_NAME_PATTERN, maxLength: MAX_TOOL_NAME },
  speakDuring: { maxLength: MAX_SPEAK_DURING },
} as const;

type ToolValues = Partial<Pick<Tool, 'name' | 'description' | 'endpoint' | 'method' | 'timeout' | 'schema' | 'speak_during'>> & {
  headers?: ToolHeader[];
};

/**
 * Checks every field sent (on create the schema guarantees the required ones are there) and
 * returns the normalised values. On create, an invalid name makes the error's message the
 * name rule, as the spec's Errors table words it; update answers `Falha na validação`.
 */
function validate(input: CreateToolInput | UpdateToolInput, operation: 'create' | 'update'): ToolValues {
  const errors = new FieldErrorCollector();
  const values: ToolValues = {};
  for (const field of ['name', 'description', 'endpoint', 'method', 'timeout'] as const) {
    if (input[field] === null) errors.add(field, FieldMessages.required(field));
  }
  if (input.name != null) {
    const name = input.name.trim();
    if (!TOOL_NAME.test(name)) errors.add('name', Messages.toolName);
    else if (name.length > MAX_TOOL_NAME) errors.add('name', FieldMessages.maxLength('name', MAX_TOOL_NAME));
    else values.name = name;
  }
  if (input.description != null) values.description = checkLength(errors, 'description', input.description, 1, 255) ?? undefined;
  if (input.endpoint != null) values.endpoint = checkHttpUrl(errors, 'endpoint', input.endpoint) ?? undefined;
  if (input.method != null) {
    const method = input.method.trim().toUpperCase();
    if (checkOneOf(errors, 'method', method, TOOL_METHODS)) values.method = method as ToolMethod;
  }
  if (input.timeout != null && checkIntRange(errors, 'timeout', input.timeout, ...TIMEOUT_SECONDS)) values.timeout = input.timeout;
  if (input.headers !== undefined) values.headers = validateHeaders(errors, input.headers ?? []);
  if (input.schema !== undefined) values.schema = validateSchema(errors, input.schema ?? []);
  if (input.speak_during !== undefined) {
    // Null or blank: the generic filler (speak_during is optional, so clearing it is no error).
    const phrase = input.speak_during?.trim() ?? '';
    if (phrase.length > MAX_SPEAK_DURING) errors.add('speak_during', FieldMessages.maxLength('speak_during', MAX_SPEAK_DURING));
    else values.speak_during = phrase || null;
  }
  const nameRule = operation === 'create' && errors.has('name') && errors.errors.name.includes(Messages.toolName);
  errors.throwIfAny(nameRule ? Messages.toolName : undefined);
  return values;
}

function validateHeaders(errors: FieldErrorCollector, headers: ToolHeaderInput[]): ToolHeader[] {
  if (headers.length > MAX_HEADERS) errors.add('headers', FieldMessages.maxItems('headers', MAX_HEADERS));
  return headers.map((header, index) => {
    const nameField = `headers.${index}.name`;
    const valueField = `headers.${index}.value`;
    const name = header.name.trim();
    if (!name) errors.add(nameField, FieldMessages.required(nameField));
    else if (name.length > MAX_HEADER_NAME || !HEADER_NAME.test(name)) errors.add(nameField, FieldMessages.headerName(nameField));
    else if (RESERVED_HEADERS.has(name.toLowerCase())) errors.add(nameField, FieldMessages.headerReserved(nameField, name));
    if (!HEADER_VALUE.test(header.value)) errors.add(valueField, FieldMessages.headerValue(valueField));
    else if (header.value.length > MAX_HEADER_VALUE) errors.add(valueField, FieldMessages.maxLength(valueField, MAX_HEADER_VALUE));
    return { name, value: header.value };
  });
}

function validateSchema(errors: FieldErrorCollector, items: ToolParameterInput[]): ToolParameter[] {
  if (items.length > MAX_PARAMETERS) errors.add('schema', FieldMessages.maxItems('schema', MAX_PARAMETERS));
  const seen = new Set<string>();
  return items.map((item, index) => {
    const field = (key: string) => `schema.${index}.${key}`;
    const name = item.name.trim();
    if (name.length < 2 || name.length > 32) errors.add(field('name'), FieldMessages.lengthBetween(field('name'), 2, 32));
    else if (!PARAMETER_NAME.test(name)) errors.add(field('name'), FieldMessages.toolParameterName(field('name')));
    else if (seen.has(name)) errors.add(field('name'), FieldMessages.distinct(field('name')));
    seen.add(name);
    checkOneOf(errors, field('type'), item.type, TOOL_PARAMETER_TYPES);
    const description = checkLength(errors, field('description'), item.description, 3, 255);
    return { name, type: item.type as ToolParameter['type'], description: description ?? '' };
  });
}

/**
 * Creates a tool within the plan's limit. The account row is locked while the tools are
 * counted, so parallel creates cannot pass the limit together.
 */
export async function createTool(scope: ToolScope, input: CreateToolInput): Promise<Tool> {
  const values = validate(input, 'create');
  const warning = await endpointWarning(scope, values.endpoint);
  return scope.em.transactional(async (em) => {
    await em.execute('select id from accounts where id = ? for no key update', [scope.accountId]);
    const limit = scope.config.maxToolsPerAccount;
    if ((await em.count(Tool, { account: scope.accountId })) >= limit) {
      throw new DomainError('PLAN_LIMIT', Messages.toolPlanLimit(limit));
    }
    const tool = em.create(Tool, {
      account: em.getReference(Account, scope.accountId),
      name: values.name!,
      description: values.description!,
      endpoint: values.endpoint!,
      method: values.method!,
      timeout: values.timeout ?? 10,
      schema: values.schema ?? [],
      speak_during: values.speak_during ?? null,
      headers_sealed: scope.secrets.sealJson(values.headers ?? []),
    });
    await em.flush();
    tool.warning = warning;
    return tool;
  });
}

/**
 * A tool's endpoint that the address guard would refuse is a webhook endpoint's case, with the
 * same rule (lib/outbound.ts): refused outside development, a warning in it.
 */
async function endpointWarning(scope: Scope, endpoint: string | undefined): Promise<string | null> {
  if (endpoint === undefined) return null;
  const errors = new FieldErrorCollector();
  const warn = await checkCalledLater(scope.config, errors, 'endpoint', endpoint);
  errors.throwIfAny();
  return warn ? Messages.toolEndpointPrivate : null;
}

export async function updateTool(scope: ToolScope, id: number, input: UpdateToolInput): Promise<Tool> {
  const values = validate(input, 'update');
  const warning = await endpointWarning(scope, values.endpoint);
  const tool = await requireTool(scope, id);
  const { headers, ...rest } = values;
  scope.em.assign(tool, rest);
  if (headers !== undefined) tool.headers_sealed = scope.secrets.sealJson(headers);
  await scope.em.flush();
  tool.warning = warning;
  return tool;
}

export async function requireTool(scope: Scope, id: number): Promise<Tool> {
  const tool = await scope.em.findOne(Tool, { id, account: scope.accountId });
  if (!tool) throw new NotFoundError(Messages.toolNotFound);
  return tool;
}

export function listTools(scope: Scope): Promise<Tool[]> {
  return scope.em.find(Tool, { account: scope.accountId }, { orderBy: { id: 'asc' } });
}

/** Deletes a tool; assistants that used it simply lose it. */
export async function deleteTool(scope: Scope, id: number): Promise<void> {
  const deleted = await scope.em.nativeDelete(Tool, { id, account: scope.accountId });
  if (deleted === 0) throw new NotFoundError(Messages.toolNotFound);
}

export function toolHeaders(secrets: SecretBox, tool: Tool): ToolHeader[] {
  return secrets.openJson<ToolHeader[]>(tool.headers_sealed);
}
