import { Link, useParams } from 'wouter';
import { useMutation, useQuery } from '../../api/hooks';
import { formatTime } from '../../ui/format';
import { ErrorNotice, Loading } from '../../ui/notice';
import { DeliveryTable } from '../calls/call.page';
import { RedeliverDocument } from '../calls/calls.operations';
import { WebhookEndpointDocument } from './settings.operations';

/** One endpoint's delivery log (the latest 50, with their attempts), and redelivery. */
export function WebhookPage() {
  const id = Number(useParams<{ id: string }>().id);
  const endpoint = useQuery(WebhookEndpointDocument, { id });
  const redeliver = useMutation(RedeliverDocument);
  if (!endpoint.data) {
    return (
      <>
        <ErrorNotice error={endpoint.error} />
        {!endpoint.error && <Loading what="the endpoint" />}
      </>
    );
  }
  const e = endpoint.data.webhookEndpoint;
  return (
    <>
      <header className="page-head">
        <div>
          <p className="crumbs">
            <Link href="/webhooks">Webhooks</Link>
          </p>
          <h1 className="mono">{e.url}</h1>
          <p className="muted">
            {e.events.join(', ')} · added {formatTime(e.created_at)}
            {e.disabled_at && ` · turned off ${formatTime(e.disabled_at)} (the receiver answered 410)`}
          </p>
        </div>
        <button type="button" className="secondary" aria-busy={endpoint.loading ? 'true' : undefined} onClick={() => void endpoint.refetch()}>
          Refresh
        </button>
      </header>
      <h2>Deliveries</h2>
      <ErrorNotice error={redeliver.error} />
      {e.deliveries.length === 0 ? (
        <p className="empty">Nothing delivered yet.</p>
      ) : (
        <DeliveryTable deliveries={e.deliveries} onRedeliver={async (delivery) => (await redeliver.run({ delivery_id: delivery })) !== null && void endpoint.refetch()} />
      )}
    </>
  );
}
