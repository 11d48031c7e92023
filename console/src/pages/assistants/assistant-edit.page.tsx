import { lazy, Suspense, useEffect, useState } from 'react';
import { Link, useLocation, useParams, useSearch } from 'wouter';
import { voiceMissingMessage } from '../../api/english';
import { useMutation, useQuery } from '../../api/hooks';
import { Fields, focusFirstInvalid, toInput, toValues, type Values } from '../../ui/form';
import { ErrorNotice, Loading } from '../../ui/notice';
import { assistantSections, NEW_ASSISTANT } from './assistant.fields';
import { AssistantChoicesDocument, AssistantDocument, CreateAssistantDocument, UpdateAssistantDocument } from './assistants.operations';
import { Talk } from './talk';
import { CallMe } from './call-me';

/** The Tests tab, loaded when opened (the console's first load stays small). */
const TestsTab = lazy(() => import('./tests.tab'));

/** Create (/assistants/new) or edit (/assistants/:id) an assistant: every field, the API's messages beside each. */
export function AssistantEditPage() {
  const params = useParams<{ id?: string }>();
  const id = params.id ? Number(params.id) : null;
  const [, navigate] = useLocation();
  const search = useSearch();
  const tab = id !== null && new URLSearchParams(search).get('tab') === 'tests' ? 'tests' : 'settings';
  const choices = useQuery(AssistantChoicesDocument);
  const existing = useQuery(AssistantDocument, { id: id ?? 0 }, { skip: id === null });
  const create = useMutation(CreateAssistantDocument);
  const update = useMutation(UpdateAssistantDocument);
  const [values, setValues] = useState<Values | null>(null);
  const [before, setBefore] = useState<Values | undefined>(undefined);
  const [localErrors, setLocalErrors] = useState<Record<string, string[]>>({});
  const [saved, setSaved] = useState(false);

  const record = id === null ? NEW_ASSISTANT : existing.data ? { ...existing.data.assistant, end_call_tool_description: existing.data.assistant.end_call_tool.description ?? '' } : undefined;
  useEffect(() => {
    if (!record || !choices.data || values) return;
    const fields = assistantSections(choices.data, String(record.engine_type), id).flatMap((section) => section.fields);
    const start = toValues(fields, record as Record<string, unknown>);
    setValues(start);
    if (id !== null) setBefore(start);
  }, [record, choices.data, values, id]);

  const mutation = id === null ? create : update;
  if (!choices.data || !values) {
    return (
      <>
        <ErrorNotice error={choices.error ?? existing.error} />
        {!(choices.error ?? existing.error) && <Loading what="the assistant" />}
      </>
    );
  }
  const sections = assistantSections(choices.data, String(values.engine_type), id);
  const fields = sections.flatMap((section) => section.fields);
  const apiErrors = { ...(mutation.error?.fields ?? {}) };
  // The API names the nested field; the form shows it beside the one input that edits it.
  if (apiErrors['end_call_tool.description']) apiErrors.end_call_tool_description = apiErrors['end_call_tool.description'];
  const errors = { ...apiErrors, ...localErrors };

  async function submit(event: any) {
    event.preventDefault();
    setSaved(false);
    const { input, errors: problems } = toInput(fields, values!, before);
    setLocalErrors(problems);
    if (Object.keys(problems).length) return focusFirstInvalid();
    if ('end_call_tool_description' in input) {
      input.end_call_tool = { description: input.end_call_tool_description || null };
      delete input.end_call_tool_description;
    }
    if (id === null) {
      const made = await create.run({ input: input as never });
      if (!made) focusFirstInvalid();
      else navigate(`/assistants/${made.createAssistant.id}`);
    } else {
      const result = await update.run({ id, input: input as never });
      if (!result) focusFirstInvalid();
      else {
        const next = toValues(fields, { ...result.updateAssistant, end_call_tool_description: result.updateAssistant.end_call_tool.description ?? '' } as Record<string, unknown>);
        setValues(next);
        setBefore(next);
        setSaved(true);
        // Another engine may need other keys: Talk's readiness is read again.
        void existing.refetch();
      }
    }
  }

  const name = id === null ? 'New assistant' : String(existing.data?.assistant.assistant_name ?? '');
  const fieldProblems = mutation.error && Object.keys(mutation.error.fields).length > 0;
  return (
    <>
      <header className="page-head">
        <div>
          <p className="crumbs">
            <Link href="/assistants">Assistants</Link>
          </p>
          <h1>{name}</h1>
        </div>
        {id !== null && (
          <nav className="tabs" aria-label="Assistant sections" style={{ justifyContent: 'flex-start', gap: '1.5rem' }}>
            <Link href={`/assistants/${id}`} aria-current={tab === 'settings' ? 'page' : undefined}>
              Settings
            </Link>{' '}
            <Link href={`/assistants/${id}?tab=tests`} aria-current={tab === 'tests' ? 'page' : undefined}>
              Tests
            </Link>
          </nav>
        )}
      </header>
      {tab === 'tests' && id !== null ? (
        <Suspense fallback={<Loading what="the tests" />}>
          <TestsTab assistantId={id} />
        </Suspense>
      ) : (
        <>
          {existing.data && !existing.data.assistant.voice_ready && (
            <p className="notice notice-error" data-voice-missing={existing.data.assistant.voice_missing.join(' ')}>
              {voiceMissingMessage(existing.data.assistant.voice_missing)} <Link href="/vendors">This server’s voice vendors</Link>
            </p>
          )}
          <div className="columns">
            <form onSubmit={submit} noValidate className="editor" aria-label="Assistant">
              {mutation.error && !fieldProblems && <ErrorNotice error={mutation.error} />}
              {fieldProblems && (
                <p className="notice notice-error" role="alert">
                  {mutation.error!.message}
                </p>
              )}
              {saved && (
                <p className="notice notice-ok" role="status">
                  Saved.
                </p>
              )}
              {sections.map((section) => (
                <fieldset key={section.title} className="panel">
                  <legend>{section.title}</legend>
                  <Fields
                    specs={section.fields}
                    values={values}
                    errors={errors}
                    onChange={(field, value) => {
                      setSaved(false);
                      setValues({ ...values, [field]: value });
                    }}
                    idPrefix="assistant"
                  />
                </fieldset>
              ))}
              <div className="form-actions sticky">
                <button type="submit" aria-busy={mutation.running ? 'true' : undefined}>
                  {id === null ? 'Create assistant' : 'Save'}
                </button>
              </div>
            </form>
            {id !== null && (
              <aside className="side">
                <Talk assistantId={id} voice={existing.data?.assistant} />
                <CallMe assistantId={id} outbound={existing.data?.assistant.calls_direction !== 'receive'} />
              </aside>
            )}
          </div>
        </>
      )}
    </>
  );
}
