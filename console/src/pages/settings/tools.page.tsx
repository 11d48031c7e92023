import { useState } from 'react';
import { useMutation, useQuery } from '../../api/hooks';
import type { ConsoleToolsQuery } from '../../gql/graphql';
import { Fields, focusFirstInvalid, toInput, toValues, type FieldSpec, type Values } from '../../ui/form';
import { formatTime } from '../../ui/format';
import { ErrorNotice } from '../../ui/notice';
import { DataTable } from '../../ui/table';
import { CreateToolDocument, DeleteToolDocument, ToolsDocument, UpdateToolDocument } from './settings.operations';

const TOOL_FIELDS: FieldSpec[] = [
  { name: 'name', label: 'Name', kind: 'text', required: true, hint: 'Lowercase letters and underscores, e.g. check_order.' },
  { name: 'method', label: 'Method', kind: 'select', choices: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((value) => ({ value, label: value })) },
  { name: 'endpoint', label: 'Endpoint', kind: 'url', wide: true, required: true, hint: 'The http(s) URL the assistant calls.' },
  { name: 'description', label: 'When to use it', kind: 'textarea', wide: true, required: true, hint: 'How the AI decides to call it; at most 255 characters.' },
  { name: 'timeout', label: 'Timeout (s)', kind: 'integer', min: 1, max: 30, hint: '1 to 30; default 10.' },
  {
    name: 'speak_during',
    label: 'Say while it runs',
    kind: 'text',
    optional: true,
    wide: true,
    hint: 'Said when the tool takes longer than 1.2 s, again every 4 s (3 times at most); empty: the assistant’s filler, if it has one.',
  },
  { name: 'schema', label: 'Parameters', kind: 'json', list: true, wide: true, hint: 'JSON list of {"name", "type" (string, number, boolean), "description"}.' },
  { name: 'headers', label: 'Headers', kind: 'json', list: true, wide: true, hint: 'JSON list of {"name", "value"}, sent with every request.' },
];

const NEW_TOOL = { name: '', method: 'POST', endpoint: '', description: '', timeout: 10, speak_during: null, schema: [], headers: [] };

type Tool = ConsoleToolsQuery['tools'][number];

/** The account's mid-call tools: list, create, edit, delete. */
export function ToolsPage() {
  const tools = useQuery(ToolsDocument);
  const [editing, setEditing] = useState<Tool | 'new' | null>(null);
  const remove = useMutation(DeleteToolDocument);
  return (
    <>
      <header className="page-head">
        <h1>Tools</h1>
        <button type="button" onClick={() => setEditing('new')}>
          New tool
        </button>
      </header>
      <p className="muted lead">HTTP endpoints an assistant calls during a call, with parameters it extracts from the conversation.</p>
      {editing && (
        <ToolForm
          key={editing === 'new' ? 'new' : editing.id}
          tool={editing === 'new' ? null : editing}
          onDone={() => {
            setEditing(null);
            void tools.refetch();
          }}
          onCancel={() => setEditing(null)}
        />
      )}
      <ErrorNotice error={tools.error ?? remove.error} />
      <DataTable rows={tools.data?.tools} what="tools" empty="No tools yet." columns={['Name', 'Request', 'Parameters', 'Updated', '']}>
        {(tool) => (
          <tr key={tool.id}>
            <td>
              <strong>{tool.name}</strong>
              <div className="muted small">{tool.description}</div>
            </td>
            <td className="mono">
              {tool.method} {tool.endpoint}
            </td>
            <td>{tool.schema.map((parameter) => parameter.name).join(', ') || '—'}</td>
            <td>{formatTime(tool.updated_at)}</td>
            <td className="actions">
              <button type="button" className="secondary outline small" aria-label={`Edit ${tool.name}`} onClick={() => setEditing(tool)}>
                Edit
              </button>
              <button
                type="button"
                className="secondary outline small"
                aria-label={`Delete ${tool.name}`}
                onClick={async () => {
                  if (confirm(`Delete the tool ${tool.name}? Assistants that use it lose it.`) && (await remove.run({ id: tool.id })) !== null) void tools.refetch();
                }}
              >
                Delete
              </button>
            </td>
          </tr>
        )}
      </DataTable>
    </>
  );
}

function ToolForm({ tool, onDone, onCancel }: { tool: Tool | null; onDone: () => void; onCancel: () => void }) {
  const start = toValues(TOOL_FIELDS, (tool ?? NEW_TOOL) as Record<string, unknown>);
  const [values, setValues] = useState<Values>(start);
  const [localErrors, setLocalErrors] = useState<Record<string, string[]>>({});
  const create = useMutation(CreateToolDocument);
  const update = useMutation(UpdateToolDocument);
  const mutation = tool ? update : create;
  async function submit(event: any) {
    event.preventDefault();
    const { input, errors } = toInput(TOOL_FIELDS, values, tool ? start : undefined);
    setLocalErrors(errors);
    if (Object.keys(errors).length) return focusFirstInvalid();
    const done = tool ? await update.run({ id: tool.id, input: input as never }) : await create.run({ input: input as never });
    if (done) onDone();
    else focusFirstInvalid();
  }
  return (
    <form className="panel" onSubmit={submit} noValidate aria-label={tool ? `Edit ${tool.name}` : 'New tool'}>
      <h2>{tool ? `Edit ${tool.name}` : 'New tool'}</h2>
      {mutation.error && !Object.keys(mutation.error.fields).length && <ErrorNotice error={mutation.error} />}
      <Fields specs={TOOL_FIELDS} values={values} errors={{ ...(mutation.error?.fields ?? {}), ...localErrors }} onChange={(name, value) => setValues({ ...values, [name]: value })} idPrefix="tool" />
      <div className="form-actions">
        <button type="submit" aria-busy={mutation.running ? 'true' : undefined}>
          {tool ? 'Save' : 'Create tool'}
        </button>
        <button type="button" className="secondary outline" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
