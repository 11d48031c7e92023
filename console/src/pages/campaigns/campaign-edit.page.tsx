import { useEffect, useState } from 'react';
import { Link, useLocation, useParams } from 'wouter';
import { useMutation, useQuery } from '../../api/hooks';
import { Fields, focusFirstInvalid, toInput, toValues, type FieldSpec, type Values } from '../../ui/form';
import { ErrorNotice, Loading } from '../../ui/notice';
import { CampaignDocument, CampaignFormChoicesDocument, CreateCampaignDocument, UpdateCampaignDocument } from './campaigns.operations';

const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

/** Every field of CreateCampaignInput / UpdateCampaignInput, with the API's defaults. */
function campaignFields(choices: { assistants: { id: number; assistant_name: string; post_call_schema: { name: string }[] }[]; phoneNumbers: { id: number; phone_number: string }[] }, assistantId: string): FieldSpec[] {
  const assistant = choices.assistants.find((item) => String(item.id) === assistantId);
  return [
    { name: 'name', label: 'Name', kind: 'text', wide: true, required: true },
    {
      name: 'assistant_id',
      label: 'Assistant',
      kind: 'select',
      optional: true,
      hint: 'The outbound assistant that makes the calls; required to start.',
      choices: choices.assistants.map((item) => ({ value: String(item.id), label: item.assistant_name })),
    },
    { name: 'timezone', label: 'Time zone', kind: 'text', hint: 'IANA Area/City; default the assistant’s, else UTC.' },
    {
      name: 'phone_number_ids',
      label: 'Caller ids',
      kind: 'checkboxes',
      wide: true,
      hint: 'The account’s numbers, used in rotation; default the assistant’s number.',
      choices: choices.phoneNumbers.map((item) => ({ value: String(item.id), label: item.phone_number })),
    },
    { name: 'allowed_days', label: 'Days', kind: 'checkboxes', wide: true, choices: DAYS.map((day) => ({ value: day, label: day[0].toUpperCase() + day.slice(1, 3) })) },
    { name: 'allowed_hours_start_time', label: 'Calls from', kind: 'time', hint: 'HH:MM, 24 h; default 09:00.' },
    { name: 'allowed_hours_end_time', label: 'Calls until', kind: 'time', hint: 'Before the start: the window spans midnight.' },
    { name: 'max_calls_in_parallel', label: 'Calls in parallel', kind: 'integer', min: 1, hint: 'Default 3.' },
    { name: 'max_retries', label: 'Retries per contact', kind: 'integer', min: 0, max: 10, hint: '0 to 10; default 3.' },
    { name: 'retry_interval', label: 'Minutes between attempts', kind: 'integer', min: 1, max: 4320, hint: '1 to 4320; default 60.' },
    {
      name: 'goal_completion_variable',
      label: 'Goal variable',
      kind: 'select',
      optional: true,
      hint: 'A post-call value of the assistant; required with "retry when the goal is not met".',
      choices: (assistant?.post_call_schema ?? []).map((item) => ({ value: item.name, label: item.name })),
    },
    { name: 'retry_on_voicemail', label: 'Retry on voicemail', kind: 'checkbox' },
    { name: 'retry_on_goal_incomplete', label: 'Retry when the goal is not met', kind: 'checkbox' },
    { name: 'mark_complete_when_no_leads', label: 'Complete when no leads are left', kind: 'checkbox' },
  ];
}

const DEFAULTS: Record<string, unknown> = {
  name: '',
  assistant_id: null,
  timezone: '',
  phone_number_ids: [],
  allowed_days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'],
  allowed_hours_start_time: '09:00',
  allowed_hours_end_time: '18:00',
  max_calls_in_parallel: 3,
  max_retries: 3,
  retry_interval: 60,
  goal_completion_variable: null,
  retry_on_voicemail: true,
  retry_on_goal_incomplete: false,
  mark_complete_when_no_leads: true,
};

/** Create a campaign (/campaigns/new) or edit one (/campaigns/:id/edit), also while it runs. */
export function CampaignEditPage() {
  const params = useParams<{ id?: string }>();
  const id = params.id ? Number(params.id) : null;
  const [, navigate] = useLocation();
  const choices = useQuery(CampaignFormChoicesDocument);
  const existing = useQuery(CampaignDocument, { id: id ?? 0 }, { skip: id === null });
  const create = useMutation(CreateCampaignDocument);
  const update = useMutation(UpdateCampaignDocument);
  const [values, setValues] = useState<Values | null>(null);
  const [before, setBefore] = useState<Values | undefined>(undefined);
  const [localErrors, setLocalErrors] = useState<Record<string, string[]>>({});

  const record = id === null ? DEFAULTS : (existing.data?.campaign as Record<string, unknown> | undefined);
  useEffect(() => {
    if (!record || !choices.data || values) return;
    const specs = campaignFields(choices.data, String(record.assistant_id ?? ''));
    const start = toValues(specs, record);
    setValues(start);
    if (id !== null) setBefore(start);
  }, [record, choices.data, values, id]);

  const mutation = id === null ? create : update;
  if (!choices.data || !values) {
    return (
      <>
        <ErrorNotice error={choices.error ?? existing.error} />
        <Loading what="the campaign" />
      </>
    );
  }
  const specs = campaignFields(choices.data, String(values.assistant_id ?? ''));
  const errors = { ...(mutation.error?.fields ?? {}), ...localErrors };

  async function submit(event: any) {
    event.preventDefault();
    const { input, errors: problems } = toInput(specs, values!, before);
    setLocalErrors(problems);
    if (Object.keys(problems).length) return focusFirstInvalid();
    if (id === null) {
      const made = await create.run({ input: input as never });
      if (!made) focusFirstInvalid();
      else navigate(`/campaigns/${made.createCampaign.id}`);
    } else {
      const saved = await update.run({ id, input: input as never });
      if (!saved) focusFirstInvalid();
      else navigate(`/campaigns/${id}`);
    }
  }

  const title = id === null ? 'New campaign' : `Edit ${String(existing.data?.campaign.name ?? '')}`;
  return (
    <>
      <header className="page-head">
        <h1>{title}</h1>
        <Link href={id === null ? '/campaigns' : `/campaigns/${id}`} className="secondary">
          Cancel
        </Link>
      </header>
      <form onSubmit={submit} noValidate className="panel">
        {mutation.error && !Object.keys(mutation.error.fields).length && <ErrorNotice error={mutation.error} />}
        {mutation.error && Object.keys(mutation.error.fields).length > 0 && (
          <p className="notice notice-error" role="alert">
            {mutation.error.message}
          </p>
        )}
        <Fields specs={specs} values={values} errors={errors} onChange={(name, value) => setValues({ ...values, [name]: value })} idPrefix="campaign" />
        <div className="form-actions">
          <button type="submit" aria-busy={mutation.running ? 'true' : undefined}>
            {id === null ? 'Create campaign' : 'Save'}
          </button>
        </div>
      </form>
    </>
  );
}
