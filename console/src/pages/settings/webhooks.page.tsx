import { useState } from 'react';
import { Link } from 'wouter';
import { warningMessage } from '../../api/english';
import { useMutation, useQuery } from '../../api/hooks';
import { Fields, toInput, type FieldSpec, type Values } from '../../ui/form';
import { formatTime } from '../../ui/format';
import { ErrorNotice } from '../../ui/notice';
import { DataTable } from '../../ui/table';
import { Status } from '../../ui/status';
import { CreateWebhookEndpointDocument, DeleteWebhookEndpointDocument, WebhookEndpointsDocument } from './settings.operations';

export const EVENT_TYPES = [
  'call.initiated',
  'call.ringing',
  'call.answered',
  'call.finished',
  'lead.status_changed',
  'campaign.status_changed',
  'campaign.completed',
  'balance.low',
  'sms.sent',
  'sms.failed',
];

const ENDPOINT_FIELDS: FieldSpec[] = [
  { name: 'url', label: 'URL', kind: 'url', wide: true, required: true, hint: 'Events are POSTed here, signed (Standard Webhooks).' },
  { name: 'events', label: 'Events', kind: 'checkboxes', wide: true, choices: EVENT_TYPES.map((value) => ({ value, label: value })) },
];

/** The account's webhook endpoints: list, add (its secret shown once), remove; each with its delivery log. */
export function WebhooksPage() {
  const endpoints = useQuery(WebhookEndpointsDocument);
  const create = useMutation(CreateWebhookEndpointDocument);
  const remove = useMutation(DeleteWebhookEndpointDocument);
  const [values, setValues] = useState<Values>({ url: '', events: ['call.finished'] });
  const [created, setCreated] = useState<{ secret: string; warning?: string | null } | null>(null);
  async function submit(event: any) {
    event.preventDefault();
    const { input } = toInput(ENDPOINT_FIELDS, values);
    const made = await create.run({ url: String(input.url ?? ''), events: (input.events as string[]) ?? [] });
    if (made) {
      setCreated(made.createWebhookEndpoint);
      setValues({ url: '', events: ['call.finished'] });
      void endpoints.refetch();
    }
  }
  return (
    <>
      <header className="page-head">
        <h1>Webhooks</h1>
      </header>
      <form className="panel" onSubmit={submit} noValidate aria-label="New endpoint">
        <h2>New endpoint</h2>
        {create.error && !Object.keys(create.error.fields).length && <ErrorNotice error={create.error} />}
        <Fields specs={ENDPOINT_FIELDS} values={values} errors={create.error?.fields ?? {}} onChange={(name, value) => setValues({ ...values, [name]: value })} idPrefix="endpoint" />
        <div className="form-actions">
          <button type="submit" aria-busy={create.running ? 'true' : undefined}>
            Add endpoint
          </button>
        </div>
      </form>
      {created && (
        <div className="notice notice-ok" role="status">
          <p>
            Endpoint added. Its signing secret, shown this once: <code>{created.secret}</code>
          </p>
          {created.warning && <p>{warningMessage(created.warning)}</p>}
        </div>
      )}
      <ErrorNotice error={endpoints.error ?? remove.error} />
      <DataTable rows={endpoints.data?.webhookEndpoints} what="endpoints" empty="No endpoints yet." columns={['URL', 'Events', 'State', 'Added', '']}>
        {(endpoint) => (
          <tr key={endpoint.id}>
            <td className="mono">
              <Link href={`/webhooks/${endpoint.id}`}>{endpoint.url}</Link>
            </td>
            <td>{endpoint.events.join(', ')}</td>
            <td>{endpoint.disabled_at ? <Status value="failed" /> : <Status value="active" />}</td>
            <td>{formatTime(endpoint.created_at)}</td>
            <td className="actions">
              <Link href={`/webhooks/${endpoint.id}`} className="secondary">
                Deliveries
              </Link>
              <button
                type="button"
                className="secondary outline small"
                aria-label={`Remove ${endpoint.url}`}
                onClick={async () => confirm(`Remove ${endpoint.url}? Its pending deliveries are not sent.`) && (await remove.run({ id: endpoint.id })) !== null && void endpoints.refetch()}
              >
                Remove
              </button>
            </td>
          </tr>
        )}
      </DataTable>
    </>
  );
}
