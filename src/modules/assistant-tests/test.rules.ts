import { FieldErrorCollector, FieldMessages } from '../../errors';

/**
 * What an assistant test may say (design.md, "Assistant tests"), checked once, here: by the
 * create and the update, REST and GraphQL alike. A bound past is a 422 naming its field.
 */
export const TEST_TYPES = ['reply', 'tool_call', 'simulation'] as const;
export type TestType = (typeof TEST_TYPES)[number];
export const CHANNELS = ['chat', 'voice'] as const;
export const MESSAGE_ROLES = ['user', 'assistant'] as const;

export const TEST_RULES = {
  nameChars: 255,
  criteria: 20,
  criterionChars: 1000,
  examples: 20,
  exampleChars: 4000,
  messages: 100,
  messageChars: 8000,
  personaChars: 8000,
  maxTurns: { min: 1, max: 40, default: 12 },
  attempts: { min: 1, max: 10, default: 1 },
  toolMocks: 20,
  /** A mock's response and a test's variables, as JSON text. */
  jsonChars: 8000,
} as const;

/**
 * The built-in functions a test may name besides the assistant's tools, by the names tests use
 * (the engines call end-call `endCall`; a test says `end_call`, as the contract does).
 */
export const BUILT_IN_TOOLS = ['end_call', 'search_knowledge_base'] as const;
/** The engines' name of a built-in, by the tests' name, and back. */
export const ENGINE_NAMES: Readonly<Record<string, string>> = { end_call: 'endCall' };
export const testToolName = (engineName: string): string => (engineName === 'endCall' ? 'end_call' : engineName);

export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface ToolMock {
  tool: string;
  response: unknown;
  status: number;
}

export type TestConfig =
  | { messages: ChatMessage[]; success_criteria: string[]; success_examples?: string[]; failure_examples?: string[] }
  | { messages: ChatMessage[]; expect: { tool: string | null; arguments?: Record<string, unknown> } }
  | {
      persona: string;
      channel: (typeof CHANNELS)[number];
      max_turns: number;
      variables?: Record<string, unknown>;
      success_criteria: string[];
      tool_mocks?: ToolMock[];
    };

export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const jsonChars = (value: unknown) => JSON.stringify(value ?? null).length;

/** Each key of `value` not in `allowed` is an error on `prefix.key`. */
function onlyKeys(errors: FieldErrorCollector, prefix: string, value: Record<string, unknown>, allowed: readonly string[]): void {
  for (const key of Object.keys(value)) if (!allowed.includes(key)) errors.add(`${prefix}.${key}`, FieldMessages.notAllowed(`${prefix}.${key}`));
}

function text(errors: FieldErrorCollector, field: string, value: unknown, max: number): string | null {
  if (typeof value !== 'string' || !value.trim()) {
    errors.add(field, value === undefined || value === null ? FieldMessages.required(field) : FieldMessages.string(field));
    return null;
  }
  if (value.length > max) errors.add(field, FieldMessages.maxLength(field, max));
  return value;
}

function texts(errors: FieldErrorCollector, field: string, value: unknown, options: { required: boolean; maxItems: number; maxChars: number }): string[] | undefined {
  if (value === undefined || value === null) {
    if (options.required) errors.add(field, FieldMessages.required(field));
    return undefined;
  }
  if (!Array.isArray(value)) return void errors.add(field, FieldMessages.list(field));
  if (options.required && value.length === 0) errors.add(field, FieldMessages.required(field));
  if (value.length > options.maxItems) return void errors.add(field, FieldMessages.maxItems(field, options.maxItems));
  value.forEach((item, i) => text(errors, `${field}.${i}`, item, options.maxChars));
  return value as string[];
}

function integer(errors: FieldErrorCollector, field: string, value: unknown, bounds: { min: number; max: number; default: number }): number {
  if (value === undefined || value === null) return bounds.default;
  if (typeof value !== 'number' || !Number.isInteger(value)) errors.add(field, FieldMessages.integer(field));
  else if (value < bounds.min || value > bounds.max) errors.add(field, FieldMessages.between(field, bounds.min, bounds.max));
  return value as number;
}

function messages(errors: FieldErrorCollector, value: unknown): ChatMessage[] {
  const field = 'config.messages';
  if (!Array.isArray(value) || value.length === 0) {
    errors.add(field, value === undefined || value === null ? FieldMessages.required(field) : FieldMessages.list(field));
    return [];
  }
  if (value.length > TEST_RULES.messages) {
    errors.add(field, FieldMessages.maxItems(field, TEST_RULES.messages));
    return [];
  }
  value.forEach((message, i) => {
    const at = `${field}.${i}`;
    if (!isObject(message)) return errors.add(at, FieldMessages.object(at));
    onlyKeys(errors, at, message, ['role', 'content']);
    if (!MESSAGE_ROLES.includes(message.role as never)) errors.add(`${at}.role`, FieldMessages.oneOf(`${at}.role`, MESSAGE_ROLES));
    text(errors, `${at}.content`, message.content, TEST_RULES.messageChars);
  });
  const last = value.at(-1);
  if (isObject(last) && last.role !== 'user') errors.add(field, FieldMessages.testLastMessageUser(field));
  return value as ChatMessage[];
}

/** A test's config checked for its type, with its defaults; `tools`: the names a test may mention (the assistant's tools, then the built-ins). */
export function checkTestConfig(errors: FieldErrorCollector, type: unknown, config: unknown, tools: readonly string[]): TestConfig | null {
  if (!TEST_TYPES.includes(type as TestType)) {
    errors.add('type', type === undefined || type === null ? FieldMessages.required('type') : FieldMessages.oneOf('type', TEST_TYPES));
    return null;
  }
  if (!isObject(config)) {
    errors.add('config', config === undefined || config === null ? FieldMessages.required('config') : FieldMessages.object('config'));
    return null;
  }
  const known = (field: string, name: unknown) => {
    if (typeof name !== 'string' || !name) errors.add(field, FieldMessages.required(field));
    else if (!tools.includes(name)) errors.add(field, FieldMessages.testUnknownTool(field, name, tools));
  };
  if (type === 'reply') {
    onlyKeys(errors, 'config', config, ['messages', 'success_criteria', 'success_examples', 'failure_examples']);
    const checked = {
      messages: messages(errors, config.messages),
      success_criteria: texts(errors, 'config.success_criteria', config.success_criteria, { required: true, maxItems: TEST_RULES.criteria, maxChars: TEST_RULES.criterionChars })!,
      success_examples: texts(errors, 'config.success_examples', config.success_examples, { required: false, maxItems: TEST_RULES.examples, maxChars: TEST_RULES.exampleChars }),
      failure_examples: texts(errors, 'config.failure_examples', config.failure_examples, { required: false, maxItems: TEST_RULES.examples, maxChars: TEST_RULES.exampleChars }),
    };
    return JSON.parse(JSON.stringify(checked));
  }
  if (type === 'tool_call') {
    onlyKeys(errors, 'config', config, ['messages', 'expect']);
    const checkedMessages = messages(errors, config.messages);
    const expect = config.expect;
    if (!isObject(expect) || !('tool' in expect)) {
      errors.add('config.expect.tool', FieldMessages.required('config.expect.tool'));
      return null;
    }
    onlyKeys(errors, 'config.expect', expect, ['tool', 'arguments']);
    if (expect.tool !== null) known('config.expect.tool', expect.tool);
    if (expect.arguments !== undefined && !isObject(expect.arguments)) errors.add('config.expect.arguments', FieldMessages.object('config.expect.arguments'));
    else if (expect.arguments !== undefined && jsonChars(expect.arguments) > TEST_RULES.jsonChars) errors.add('config.expect.arguments', FieldMessages.maxLength('config.expect.arguments', TEST_RULES.jsonChars));
    return { messages: checkedMessages, expect: { tool: (expect.tool as string | null) ?? null, ...(expect.arguments !== undefined ? { arguments: expect.arguments as Record<string, unknown> } : {}) } };
  }
  onlyKeys(errors, 'config', config, ['persona', 'channel', 'max_turns', 'variables', 'success_criteria', 'tool_mocks']);
  const persona = text(errors, 'config.persona', config.persona, TEST_RULES.personaChars);
  const channel = config.channel ?? 'chat';
  if (!CHANNELS.includes(channel as never)) errors.add('config.channel', FieldMessages.oneOf('config.channel', CHANNELS));
  const maxTurns = integer(errors, 'config.max_turns', config.max_turns, TEST_RULES.maxTurns);
  if (config.variables !== undefined && !isObject(config.variables)) errors.add('config.variables', FieldMessages.object('config.variables'));
  else if (jsonChars(config.variables) > TEST_RULES.jsonChars) errors.add('config.variables', FieldMessages.maxLength('config.variables', TEST_RULES.jsonChars));
  const criteria = texts(errors, 'config.success_criteria', config.success_criteria, { required: true, maxItems: TEST_RULES.criteria, maxChars: TEST_RULES.criterionChars });
  let mocks: ToolMock[] | undefined;
  if (config.tool_mocks !== undefined) {
    if (!Array.isArray(config.tool_mocks)) errors.add('config.tool_mocks', FieldMessages.list('config.tool_mocks'));
    else if (config.tool_mocks.length > TEST_RULES.toolMocks) errors.add('config.tool_mocks', FieldMessages.maxItems('config.tool_mocks', TEST_RULES.toolMocks));
    else {
      mocks = config.tool_mocks.map((mock, i) => {
        const at = `config.tool_mocks.${i}`;
        if (!isObject(mock)) {
          errors.add(at, FieldMessages.object(at));
          return null as never;
        }
        onlyKeys(errors, at, mock, ['tool', 'response', 'status']);
        known(`${at}.tool`, mock.tool);
        if (!('response' in mock)) errors.add(`${at}.response`, FieldMessages.required(`${at}.response`));
        else if (jsonChars(mock.response) > TEST_RULES.jsonChars) errors.add(`${at}.response`, FieldMessages.maxLength(`${at}.response`, TEST_RULES.jsonChars));
        const status = integer(errors, `${at}.status`, mock.status, { min: 100, max: 599, default: 200 });
        return { tool: mock.tool as string, response: mock.response ?? null, status };
      });
      const names = mocks.map((mock) => mock?.tool);
      names.forEach((name, i) => {
        if (name && names.indexOf(name) !== i) errors.add(`config.tool_mocks.${i}.tool`, FieldMessages.distinct(`config.tool_mocks.${i}.tool`));
      });
    }
  }
  return {
    persona: persona ?? '',
    channel: channel as 'chat' | 'voice',
    max_turns: maxTurns,
    ...(config.variables !== undefined ? { variables: config.variables as Record<string, unknown> } : {}),
    success_criteria: criteria ?? [],
    ...(mocks ? { tool_mocks: mocks } : {}),
  };
}

/** Whether `actual` holds every value of `expected`: objects key by key (more keys allowed), arrays and scalars equal. */
export function containsDeep(actual: unknown, expected: unknown): boolean {
  if (isObject(expected)) return isObject(actual) && Object.entries(expected).every(([key, value]) => key in actual && containsDeep(actual[key], value));
  if (Array.isArray(expected)) return Array.isArray(actual) && actual.length === expected.length && expected.every((value, i) => containsDeep(actual[i], value));
  return Object.is(actual, expected);
}
