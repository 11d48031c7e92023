import { useState } from 'react';
import { useMutation } from '../../api/hooks';
import { CreateAssistantTestDocument, UpdateAssistantTestDocument } from './tests.operations';

export type TestType = 'reply' | 'tool_call' | 'simulation';
export const TYPE_LABELS: Record<TestType, string> = { reply: 'Reply', tool_call: 'Tool call', simulation: 'Simulation' };

export interface TestRecord {
  id: number;
  name: string;
  type: string;
  config: Record<string, unknown>;
}

interface Message {
  role: 'user' | 'assistant';
  content: string;
}
interface Mock {
  tool: string;
  response: string;
  status: string;
}

/** What the form edits: every type's fields, so that switching the type keeps what was typed. */
interface Draft {
  name: string;
  type: TestType;
  messages: Message[];
  criteria: string;
  successExamples: string;
  failureExamples: string;
  /** '' expects no tool call. */
  expectTool: string;
  expectArguments: string;
  persona: string;
  channel: 'chat' | 'voice';
  maxTurns: string;
  variables: string;
  mocks: Mock[];
}

const lines = (value: unknown) => (Array.isArray(value) ? value.map(String).join('\n') : '');
const json = (value: unknown) => (value === undefined ? '' : JSON.stringify(value, null, 2));

function draftOf(test: TestRecord | null): Draft {
  const c = (test?.config ?? {}) as Record<string, any>;
  return {
    name: test?.name ?? '',
    type: (test?.type as TestType) ?? 'reply',
    messages: Array.isArray(c.messages) && c.messages.length ? c.messages.map((m: Message) => ({ role: m.role, content: m.content })) : [{ role: 'user', content: '' }],
    criteria: lines(c.success_criteria),
    successExamples: lines(c.success_examples),
    failureExamples: lines(c.failure_examples),
    expectTool: c.expect?.tool ?? '',
    expectArguments: json(c.expect?.arguments),
    persona: c.persona ?? '',
    channel: c.channel ?? 'chat',
    maxTurns: String(c.max_turns ?? 12),
    variables: json(c.variables),
    mocks: Array.isArray(c.tool_mocks) ? c.tool_mocks.map((m: any) => ({ tool: m.tool, response: JSON.stringify(m.response), status: String(m.status ?? 200) })) : [],
  };
}

const splitLines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

/** A number the API checks (a bad one is its 422 beside the field); text that is no number goes as typed, for the API's message. */
const numberOr = (text: string): number | string => (text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : text);

/** The API's input from the draft; JSON that does not parse is the form's own error, by the field the API would name. */
function inputOf(draft: Draft): { input: { name: string; type: TestType; config: Record<string, unknown> }; errors: Record<string, string[]> } {
  const errors: Record<string, string[]> = {};
  const parse = (field: string, text: string): unknown => {
    try {
      return JSON.parse(text);
    } catch {
      errors[field] = ['This is not valid JSON.'];
      return undefined;
    }
  };
  const messages = draft.messages.map((m) => ({ role: m.role, content: m.content }));
  let config: Record<string, unknown>;
  if (draft.type === 'reply') {
    config = { messages, success_criteria: splitLines(draft.criteria) };
    if (splitLines(draft.successExamples).length) config.success_examples = splitLines(draft.successExamples);
    if (splitLines(draft.failureExamples).length) config.failure_examples = splitLines(draft.failureExamples);
  } else if (draft.type === 'tool_call') {
    const expect: Record<string, unknown> = { tool: draft.expectTool || null };
    if (draft.expectArguments.trim()) expect.arguments = parse('config.expect.arguments', draft.expectArguments);
    config = { messages, expect };
  } else {
    config = { persona: draft.persona, channel: draft.channel, max_turns: draft.maxTurns.trim() === '' ? undefined : numberOr(draft.maxTurns), success_criteria: splitLines(draft.criteria) };
    if (draft.variables.trim()) config.variables = parse('config.variables', draft.variables);
    if (draft.mocks.length)
      config.tool_mocks = draft.mocks.map((mock, i) => ({
        tool: mock.tool,
        response: mock.response.trim() ? parse(`config.tool_mocks.${i}.response`, mock.response) : null,
        status: mock.status.trim() === '' ? 200 : numberOr(mock.status),
      }));
  }
  return { input: { name: draft.name, type: draft.type, config }, errors };
}

/** The messages about a field: its own, and (prefixed with the item) those about its items. */
function messagesFor(errors: Record<string, string[]>, field: string, item?: (index: number) => string): string[] {
  const out = [...(errors[field] ?? [])];
  if (item)
    for (const [key, messages] of Object.entries(errors)) {
      const match = new RegExp(`^${field.replace(/\./g, '\\.')}\\.(\\d+)$`).exec(key);
      if (match) out.push(...messages.map((message) => `${item(Number(match[1]))}: ${message}`));
    }
  return out;
}

function FieldError({ id, messages }: { id: string; messages: string[] }) {
  if (!messages.length) return null;
  return (
    <small id={id} className="test-field-error">
      {messages.join(' ')}
    </small>
  );
}

/** The props an input needs to be read with its error: aria-invalid and the error's id. */
const invalid = (id: string, messages: string[]) => (messages.length ? { 'aria-invalid': true as const, 'aria-describedby': `${id}-error` } : {});

/** The keys the form shows beside a field; any other the API names is listed above the form. */
function shownKeys(draft: Draft): RegExp {
  const common = ['name', 'type', 'config'];
  const byType: Record<TestType, string[]> = {
    reply: ['config\\.messages(\\.\\d+(\\.role|\\.content)?)?', 'config\\.success_criteria(\\.\\d+)?', 'config\\.success_examples(\\.\\d+)?', 'config\\.failure_examples(\\.\\d+)?'],
    tool_call: ['config\\.messages(\\.\\d+(\\.role|\\.content)?)?', 'config\\.expect\\.tool', 'config\\.expect\\.arguments'],
    simulation: ['config\\.persona', 'config\\.channel', 'config\\.max_turns', 'config\\.variables', 'config\\.success_criteria(\\.\\d+)?', 'config\\.tool_mocks(\\.\\d+(\\.tool|\\.response|\\.status)?)?'],
  };
  return new RegExp(`^(${[...common, ...byType[draft.type]].join('|')})$`);
}

/**
 * Writes a test (a form per type) or edits one; the API's messages beside each field they
 * name. `toolNames`: the assistant's tools, which tool_call and mocks may name (with end_call).
 */
export function TestForm({ assistantId, test, toolNames, onDone }: { assistantId: number; test: TestRecord | null; toolNames: string[]; onDone: (saved: boolean) => void }) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(test));
  const [localErrors, setLocalErrors] = useState<Record<string, string[]>>({});
  const create = useMutation(CreateAssistantTestDocument);
  const update = useMutation(UpdateAssistantTestDocument);
  const mutation = test ? update : create;
  const errors = { ...(mutation.error?.fields ?? {}), ...localErrors };
  const set = (change: Partial<Draft>) => setDraft({ ...draft, ...change });
  const p = `test-${test?.id ?? 'new'}`;
  const choices = [...new Set([...toolNames, 'end_call'])];

  async function submit(event: any) {
    event.preventDefault();
    const { input, errors: problems } = inputOf(draft);
    setLocalErrors(problems);
    mutation.reset();
    if (Object.keys(problems).length) return focusInvalid();
    const done = test ? await update.run({ id: test.id, input }) : await create.run({ assistant_id: assistantId, input });
    if (done) onDone(true);
    else focusInvalid();
  }
  const focusInvalid = () => setTimeout(() => (document.querySelector(`#${p}-form [aria-invalid="true"]`) as HTMLElement | null)?.focus(), 0);

  const field = (key: string, item?: (i: number) => string) => messagesFor(errors, key, item);
  const shown = shownKeys(draft);
  const unshown = Object.entries(mutation.error?.fields ?? {}).filter(([key]) => !shown.test(key) && !/^config\.(messages|tool_mocks)\.\d+\./.test(key));
  const criteriaLine = (i: number) => `Line ${i + 1}`;

  const nameErrors = field('name');
  const typeErrors = [...field('type'), ...field('config')];
  const messagesErrors = field('config.messages');
  const criteriaErrors = field('config.success_criteria', criteriaLine);

  const messagesEditor = (
    <fieldset className="test-messages">
      <legend>Conversation so far (the last message is the customer’s)</legend>
      <FieldError id={`${p}-messages-error`} messages={messagesErrors} />
      <ol>
        {draft.messages.map((message, i) => {
          const contentErrors = [...field(`config.messages.${i}.content`), ...field(`config.messages.${i}.role`), ...field(`config.messages.${i}`)];
          return (
            <li key={i} className="test-message">
              <label htmlFor={`${p}-message-${i}-role`}>Message {i + 1} from</label>
              <select id={`${p}-message-${i}-role`} value={message.role} onChange={(e) => set({ messages: draft.messages.map((m, j) => (j === i ? { ...m, role: e.target.value as Message['role'] } : m)) })}>
                <option value="user">Customer</option>
                <option value="assistant">Assistant</option>
              </select>
              <label htmlFor={`${p}-message-${i}`} className="visually-hidden-test">
                Message {i + 1}
              </label>
              <textarea
                id={`${p}-message-${i}`}
                rows={2}
                value={message.content}
                onChange={(e) => set({ messages: draft.messages.map((m, j) => (j === i ? { ...m, content: e.target.value } : m)) })}
                {...invalid(`${p}-message-${i}`, contentErrors)}
              />
              <FieldError id={`${p}-message-${i}-error`} messages={contentErrors} />
              {draft.messages.length > 1 && (
                <button type="button" className="secondary outline small" onClick={() => set({ messages: draft.messages.filter((_, j) => j !== i) })}>
                  Remove message {i + 1}
                </button>
              )}
            </li>
          );
        })}
      </ol>
      <button type="button" className="secondary outline small" onClick={() => set({ messages: [...draft.messages, { role: draft.messages.at(-1)?.role === 'user' ? 'assistant' : 'user', content: '' }] })}>
        Add a message
      </button>
    </fieldset>
  );

  const criteriaEditor = (
    <label htmlFor={`${p}-criteria`}>
      Success criteria, one a line (a judge decides each)
      <textarea id={`${p}-criteria`} rows={3} value={draft.criteria} onChange={(e) => set({ criteria: e.target.value })} {...invalid(`${p}-criteria`, criteriaErrors)} />
      <FieldError id={`${p}-criteria-error`} messages={criteriaErrors} />
    </label>
  );

  const textArea = (key: keyof Draft, apiField: string, label: string, rows = 3, item?: (i: number) => string) => {
    const messages = field(apiField, item);
    const id = `${p}-${String(key)}`;
    return (
      <label htmlFor={id}>
        {label}
        <textarea id={id} rows={rows} value={draft[key] as string} onChange={(e) => set({ [key]: e.target.value } as Partial<Draft>)} {...invalid(id, messages)} />
        <FieldError id={`${id}-error`} messages={messages} />
      </label>
    );
  };

  return (
    <form id={`${p}-form`} className="test-form panel" onSubmit={submit} noValidate aria-label={test ? `Edit test ${test.name}` : 'New test'}>
      <h3>{test ? `Edit “${test.name}”` : 'New test'}</h3>
      {mutation.error && (
        <div className="notice notice-error" role="alert">
          <p>{mutation.error.message}</p>
          {unshown.length > 0 && (
            <ul>
              {unshown.map(([key, messages]) => (
                <li key={key}>
                  {key}: {messages.join(' ')}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {Object.keys(localErrors).length > 0 && !mutation.error && (
        <p className="notice notice-error" role="alert">
          Some fields need a change: see the messages beside them.
        </p>
      )}
      <div className="test-form-row">
        <label htmlFor={`${p}-name`}>
          Name
          <input id={`${p}-name`} value={draft.name} onChange={(e) => set({ name: e.target.value })} {...invalid(`${p}-name`, nameErrors)} />
          <FieldError id={`${p}-name-error`} messages={nameErrors} />
        </label>
        <label htmlFor={`${p}-type`}>
          Type
          <select id={`${p}-type`} value={draft.type} onChange={(e) => set({ type: e.target.value as TestType })} {...invalid(`${p}-type`, typeErrors)}>
            {(Object.keys(TYPE_LABELS) as TestType[]).map((type) => (
              <option key={type} value={type}>
                {TYPE_LABELS[type]}
              </option>
            ))}
          </select>
          <FieldError id={`${p}-type-error`} messages={typeErrors} />
        </label>
      </div>

      {draft.type === 'reply' && (
        <>
          {messagesEditor}
          {criteriaEditor}
          <details>
            <summary>Examples for the judge (optional)</summary>
            {textArea('successExamples', 'config.success_examples', 'Answers that pass, one a line', 2, criteriaLine)}
            {textArea('failureExamples', 'config.failure_examples', 'Answers that fail, one a line', 2, criteriaLine)}
          </details>
        </>
      )}

      {draft.type === 'tool_call' && (
        <>
          {messagesEditor}
          <div className="test-form-row">
            <label htmlFor={`${p}-expect-tool`}>
              Expected tool
              <select id={`${p}-expect-tool`} value={draft.expectTool} onChange={(e) => set({ expectTool: e.target.value })} {...invalid(`${p}-expect-tool`, field('config.expect.tool'))}>
                <option value="">No tool call</option>
                {[...new Set([...choices, ...(draft.expectTool ? [draft.expectTool] : [])])].map((name) => (
                  <option key={name} value={name}>
                    {name}
                  </option>
                ))}
              </select>
              <FieldError id={`${p}-expect-tool-error`} messages={field('config.expect.tool')} />
            </label>
          </div>
          {textArea('expectArguments', 'config.expect.arguments', 'Expected arguments (JSON object the call’s arguments must contain; optional)', 3)}
        </>
      )}

      {draft.type === 'simulation' && (
        <>
          {textArea('persona', 'config.persona', 'Persona of the simulated caller', 4)}
          <div className="test-form-row">
            <label htmlFor={`${p}-channel`}>
              Channel
              <select id={`${p}-channel`} value={draft.channel} onChange={(e) => set({ channel: e.target.value as Draft['channel'] })} {...invalid(`${p}-channel`, field('config.channel'))}>
                <option value="chat">Chat (the text loop)</option>
                <option value="voice">Voice (the pipeline engine)</option>
              </select>
              <FieldError id={`${p}-channel-error`} messages={field('config.channel')} />
            </label>
            <label htmlFor={`${p}-max-turns`}>
              Max turns (1 to 40)
              <input id={`${p}-max-turns`} inputMode="numeric" value={draft.maxTurns} onChange={(e) => set({ maxTurns: e.target.value })} {...invalid(`${p}-max-turns`, field('config.max_turns'))} />
              <FieldError id={`${p}-max-turns-error`} messages={field('config.max_turns')} />
            </label>
          </div>
          {criteriaEditor}
          {textArea('variables', 'config.variables', 'Variables (JSON object; optional)', 2)}
          <fieldset className="test-mocks">
            <legend>Tool mocks (answer instead of the tool’s HTTP call)</legend>
            <FieldError id={`${p}-mocks-error`} messages={field('config.tool_mocks')} />
            {draft.mocks.map((mock, i) => {
              const at = `config.tool_mocks.${i}`;
              const setMock = (change: Partial<Mock>) => set({ mocks: draft.mocks.map((m, j) => (j === i ? { ...m, ...change } : m)) });
              return (
                <div key={i} className="test-mock">
                  <label htmlFor={`${p}-mock-${i}-tool`}>
                    Mock {i + 1}: tool
                    <select id={`${p}-mock-${i}-tool`} value={mock.tool} onChange={(e) => setMock({ tool: e.target.value })} {...invalid(`${p}-mock-${i}-tool`, [...field(`${at}.tool`), ...field(at)])}>
                      <option value="">Choose a tool</option>
                      {[...new Set([...toolNames, ...(mock.tool ? [mock.tool] : [])])].map((name) => (
                        <option key={name} value={name}>
                          {name}
                        </option>
                      ))}
                    </select>
                    <FieldError id={`${p}-mock-${i}-tool-error`} messages={[...field(`${at}.tool`), ...field(at)]} />
                  </label>
                  <label htmlFor={`${p}-mock-${i}-response`}>
                    Response (JSON)
                    <textarea id={`${p}-mock-${i}-response`} rows={2} value={mock.response} onChange={(e) => setMock({ response: e.target.value })} {...invalid(`${p}-mock-${i}-response`, field(`${at}.response`))} />
                    <FieldError id={`${p}-mock-${i}-response-error`} messages={field(`${at}.response`)} />
                  </label>
                  <label htmlFor={`${p}-mock-${i}-status`}>
                    HTTP status
                    <input id={`${p}-mock-${i}-status`} inputMode="numeric" value={mock.status} onChange={(e) => setMock({ status: e.target.value })} {...invalid(`${p}-mock-${i}-status`, field(`${at}.status`))} />
                    <FieldError id={`${p}-mock-${i}-status-error`} messages={field(`${at}.status`)} />
                  </label>
                  <button type="button" className="secondary outline small" onClick={() => set({ mocks: draft.mocks.filter((_, j) => j !== i) })}>
                    Remove mock {i + 1}
                  </button>
                </div>
              );
            })}
            <button type="button" className="secondary outline small" onClick={() => set({ mocks: [...draft.mocks, { tool: toolNames[0] ?? '', response: '{}', status: '200' }] })}>
              Add a mock
            </button>
          </fieldset>
        </>
      )}

      <div className="form-actions">
        <button type="submit" aria-busy={mutation.running ? 'true' : undefined}>
          {test ? 'Save test' : 'Create test'}
        </button>
        <button type="button" className="secondary outline" onClick={() => onDone(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
