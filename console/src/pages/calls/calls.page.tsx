import { useRef, useState } from 'react';
import { Link } from 'wouter';
import { HANGUP_REASONS } from '../../api/english';
import { useBatched, useQuery, useSubscription } from '../../api/hooks';
import type { ConsoleCallsLiveSubscription, ConsoleCallsQueryVariables } from '../../gql/graphql';
import { DownloadButton } from '../../ui/download-button';
import { formatDuration, formatMoney, formatTime } from '../../ui/format';
import { ErrorNotice, Loading } from '../../ui/notice';
import { Pager } from '../../ui/pager';
import { Status } from '../../ui/status';
import { CallFilterChoicesDocument, CallsDocument, CallsLiveDocument } from './calls.operations';
import { CallColumnsPicker, evaluationOf, STATUS_MEANINGS, useCallColumns } from './calls.columns';

export const CALL_STATUSES = ['initiated', 'ringing', 'busy', 'in-progress', 'ended', 'completed', 'ended_by_customer', 'ended_by_assistant', 'no-answer', 'failed'];
const TYPES = ['inbound', 'outbound', 'web'];

interface Filters {
  status: string;
  type: string;
  phone_number: string;
  assistant_id: string;
  campaign_id: string;
  date_from: string;
  date_to: string;
}
const NO_FILTERS: Filters = { status: '', type: '', phone_number: '', assistant_id: '', campaign_id: '', date_from: '', date_to: '' };

function variablesOf(filters: Filters, page: number): ConsoleCallsQueryVariables {
  return {
    page,
    per_page: 25,
    status: filters.status || undefined,
    type: filters.type || undefined,
    phone_number: filters.phone_number || undefined,
    assistant_id: filters.assistant_id ? Number(filters.assistant_id) : undefined,
    campaign_id: filters.campaign_id ? Number(filters.campaign_id) : undefined,
    date_from: filters.date_from || undefined,
    date_to: filters.date_to || undefined,
  };
}

/** The applied filters as GET /user/calls.csv takes them (the list's own, every page). */
function exportPath(filters: Filters): string {
  const query = new URLSearchParams(Object.entries(filters).filter(([, value]) => value !== ''));
  return `/user/calls.csv${query.size ? `?${query}` : ''}`;
}

type CallChange = ConsoleCallsLiveSubscription['callUpdated'];

/** The account's calls, with the spec's filters, paged; statuses change live on the page. */
export function CallsPage() {
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [page, setPage] = useState(1);
  const [fresh, setFresh] = useState(0);
  const choices = useQuery(CallFilterChoicesDocument);
  const [columns, setColumns] = useCallColumns();
  const shows = (column: string) => columns.includes(column);
  const calls = useQuery(CallsDocument, variablesOf(filters, page));
  // Calls newer than the list, seen on the socket: counted once each, shown on request.
  const freshIds = useRef(new Set<number>());
  const apply = useBatched<CallChange>((changes) => {
    const latest = new Map(changes.map((change) => [change.id, change]));
    const rows = calls.data?.calls.data ?? [];
    const shown = new Set(rows.map((call) => call.id));
    for (const id of latest.keys()) if (!shown.has(id) && id > (rows[0]?.id ?? 0)) freshIds.current.add(id);
    setFresh(freshIds.current.size);
    calls.update((data) => ({ ...data, calls: { ...data.calls, data: data.calls.data.map((call) => (latest.has(call.id) ? { ...call, ...latest.get(call.id)! } : call)) } }));
  });
  useSubscription(
    CallsLiveDocument,
    { assistant_id: filters.assistant_id ? Number(filters.assistant_id) : undefined, campaign_id: filters.campaign_id ? Number(filters.campaign_id) : undefined },
    (data) => apply(data.callUpdated),
  );
  const set = (name: keyof Filters) => (event: any) => setDraft({ ...draft, [name]: event.target.value });
  return (
    <>
      <header className="page-head">
        <h1>Calls</h1>
        <div className="head-actions">
          <DownloadButton path={exportPath(filters)} fileName="calls.csv">
            Export CSV
          </DownloadButton>
        </div>
      </header>
      <form
        className="filters"
        role="search"
        aria-label="Filter calls"
        onSubmit={(event: any) => {
          event.preventDefault();
          setFilters(draft);
          setPage(1);
          freshIds.current.clear();
          setFresh(0);
        }}
      >
        <div>
          <label htmlFor="call-status">Status</label>
          <select id="call-status" value={draft.status} onChange={set('status')}>
            <option value="">Any</option>
            {CALL_STATUSES.map((status) => (
              <option key={status}>{status}</option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="call-type">Type</label>
          <select id="call-type" value={draft.type} onChange={set('type')}>
            <option value="">Any</option>
            {TYPES.map((type) => (
              <option key={type}>{type}</option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="call-assistant">Assistant</label>
          <select id="call-assistant" value={draft.assistant_id} onChange={set('assistant_id')}>
            <option value="">Any</option>
            {choices.data?.assistants.map((assistant) => (
              <option key={assistant.id} value={assistant.id}>
                {assistant.assistant_name}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="call-campaign">Campaign</label>
          <select id="call-campaign" value={draft.campaign_id} onChange={set('campaign_id')}>
            <option value="">Any</option>
            {choices.data?.campaigns.map((campaign) => (
              <option key={campaign.id} value={campaign.id}>
                {campaign.name}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="call-phone">Customer’s number</label>
          <input id="call-phone" type="search" value={draft.phone_number} onChange={set('phone_number')} />
        </div>
        <div>
          <label htmlFor="call-from">From</label>
          <input id="call-from" type="date" value={draft.date_from} onChange={set('date_from')} />
        </div>
        <div>
          <label htmlFor="call-to">To</label>
          <input id="call-to" type="date" value={draft.date_to} onChange={set('date_to')} />
        </div>
        <button type="submit">Filter</button>
      </form>
      {fresh > 0 && page === 1 && (
        <p className="notice" role="status">
          {fresh} new call{fresh === 1 ? '' : 's'} since this list loaded.{' '}
          <button
            type="button"
            className="link"
            onClick={() => {
              freshIds.current.clear();
              setFresh(0);
              void calls.refetch();
            }}
          >
            Show them
          </button>
        </p>
      )}
      <CallColumnsPicker columns={columns} onChange={setColumns} />
      <ErrorNotice error={calls.error} />
      {!calls.data ? (
        <Loading what="calls" />
      ) : calls.data.calls.data.length === 0 ? (
        <p className="empty">No calls match.</p>
      ) : (
        <div className="table-wrap">
          <table className="striped" aria-busy={calls.loading ? 'true' : undefined}>
            <thead>
              <tr>
                <th scope="col">Call</th>
                <th scope="col">When</th>
                <th scope="col">Customer</th>
                <th scope="col">Assistant</th>
                {shows('campaign') && <th scope="col">Campaign</th>}
                {shows('type') && <th scope="col">Type</th>}
                <th scope="col">
                  <span className="with-tip">
                    Status{' '}
                    <button type="button" className="tip" aria-describedby="status-tip" aria-label="What the statuses mean">
                      ?
                    </button>
                    <span role="tooltip" id="status-tip" className="tip-text">
                      {STATUS_MEANINGS}
                    </span>
                  </span>
                </th>
                {shows('answered_by') && <th scope="col">Answered by</th>}
                {shows('hangup_reason') && <th scope="col">Ended by</th>}
                {shows('sentiment') && <th scope="col">Sentiment</th>}
                {shows('summary') && <th scope="col">Summary</th>}
                {shows('duration') && (
                  <th scope="col" className="num">
                    Duration
                  </th>
                )}
                {shows('cost') && (
                  <th scope="col" className="num">
                    Cost
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {calls.data.calls.data.map((call) => (
                <tr key={call.id} data-call={call.id}>
                  <td>
                    <Link href={`/calls/${call.id}`}>#{call.id}</Link>
                  </td>
                  <td>{formatTime(call.created_at)}</td>
                  <td className="mono">{call.client_phone_number}</td>
                  <td>{call.assistant_name}</td>
                  {shows('campaign') && <td>{call.campaign_name ?? '—'}</td>}
                  {shows('type') && <td>{call.type}</td>}
                  <td>
                    <Status value={call.status} />
                  </td>
                  {shows('answered_by') && <td data-answered-by>{call.answered_by ?? '—'}</td>}
                  {shows('hangup_reason') && (
                    <td data-hangup-reason title={call.hangup_reason ? HANGUP_REASONS[call.hangup_reason] : undefined}>
                      {call.hangup_reason ?? '—'}
                    </td>
                  )}
                  {shows('sentiment') && <td data-sentiment>{evaluationOf(call.evaluation).sentiment}</td>}
                  {shows('summary') && <td data-summary>{evaluationOf(call.evaluation).summary}</td>}
                  {shows('duration') && <td className="num">{formatDuration(call.duration)}</td>}
                  {shows('cost') && <td className="num">{formatMoney(call.total_cost)}</td>}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager page={calls.data?.calls} onPage={setPage} label="Call" />
    </>
  );
}
