import { useState } from 'react';
import { Link, useParams } from 'wouter';
import { request } from '../../api/client';
import { useBatched, useMutation, useQuery, useSubscription } from '../../api/hooks';
import type { ConsoleCampaignFieldsFragment, ConsoleLeadLiveSubscription } from '../../gql/graphql';
import { Fields, toInput, type FieldSpec, type Values } from '../../ui/form';
import { formatCount, formatDuration, formatMoney, formatTime } from '../../ui/format';
import { DownloadButton } from '../../ui/download-button';
import { ErrorNotice, Loading } from '../../ui/notice';
import { Pager } from '../../ui/pager';
import { Status } from '../../ui/status';
import { CampaignWindow } from './campaign.window';
import { StartStop } from './campaign.actions';
import { CampaignProgress, LEAD_STATUSES, StatusCounts } from './campaign.progress';
import { CampaignDocument, CampaignLiveDocument } from './campaigns.operations';
import { LeadImportPanel } from './lead-import.panel';
import { CreateLeadDocument, LeadDetailDocument, LeadLiveDocument, LeadsDocument } from './leads.operations';

const PER_PAGE = 25;

/** A campaign: its progress and per-status counts, live; its leads, paged, with their attempts and calls. */
export function CampaignPage() {
  const id = Number(useParams<{ id: string }>().id);
  const [campaign, setCampaign] = useState<ConsoleCampaignFieldsFragment | null>(null);
  // A running campaign's stats change with every lead and call: the latest of a burst is shown, once per 250 ms.
  const applyLatest = useBatched<ConsoleCampaignFieldsFragment>((items) => setCampaign(items[items.length - 1]));
  const liveError = useSubscription(CampaignLiveDocument, { id }, (data) => (campaign ? applyLatest(data.campaignUpdated) : setCampaign(data.campaignUpdated)));
  // An import's batches are not campaign events: the counts are asked again after each one.
  const refresh = useBatched<unknown>(() => {
    void request(CampaignDocument, { id })
      .then((data) => setCampaign(data.campaign))
      .catch(() => {});
  }, 500);
  if (!campaign) {
    return (
      <>
        <ErrorNotice error={liveError} />
        {!liveError && <Loading what="the campaign" />}
      </>
    );
  }
  return (
    <>
      <header className="page-head">
        <div>
          <p className="crumbs">
            <Link href="/campaigns">Campaigns</Link>
          </p>
          <h1>
            {campaign.name} <Status value={campaign.status} />
          </h1>
        </div>
        <div className="head-actions">
          <StartStop id={campaign.id} name={campaign.name} status={campaign.status} />
          <Link href={`/campaigns/${campaign.id}/edit`} role="button" className="secondary">
            Edit
          </Link>
        </div>
      </header>
      {liveError && <p className="muted">Live updates paused: {liveError.message}</p>}
      <section className="panel" aria-label="Progress">
        <CampaignProgress leads={campaign.stats.leads} label={campaign.name} />
        <dl className="facts">
          <div>
            <dt>Calls in progress</dt>
            <dd data-fact="calls_in_progress">{formatCount(campaign.stats.calls_in_progress)}</dd>
          </div>
          <div>
            <dt>Attempts</dt>
            <dd data-fact="attempts">{formatCount(campaign.stats.attempts)}</dd>
          </div>
          <div>
            <dt>Cost</dt>
            <dd data-fact="total_cost">{formatMoney(campaign.stats.total_cost)}</dd>
          </div>
          <div>
            <dt>Window</dt>
            <dd>
              <CampaignWindow campaign={campaign} />
            </dd>
          </div>
        </dl>
      </section>
      <Leads campaign={campaign} onImported={() => refresh(null)} />
    </>
  );
}

type LeadChange = ConsoleLeadLiveSubscription['leadUpdated'];

function Leads({ campaign, onImported }: { campaign: ConsoleCampaignFieldsFragment; onImported: () => void }) {
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState('');
  const [search, setSearch] = useState('');
  const [phone, setPhone] = useState('');
  const [open, setOpen] = useState<number | null>(null);
  const [adding, setAdding] = useState(false);
  const [importing, setImporting] = useState(false);
  const leads = useQuery(LeadsDocument, { campaign_id: campaign.id, page, per_page: PER_PAGE, status: status || undefined, phone_number: phone || undefined });
  // Thousands of leads may change a second: the page applies them in batches, and only to the
  // rows it shows (the counts above come from the campaign's own stats).
  const apply = useBatched<LeadChange>((changes) => {
    const latest = new Map(changes.map((change) => [change.id, change]));
    leads.update((data) => {
      if (!data.leads.data.some((lead) => latest.has(lead.id))) return data;
      return { ...data, leads: { ...data.leads, data: data.leads.data.map((lead) => (latest.has(lead.id) ? { ...lead, ...latest.get(lead.id)! } : lead)) } };
    });
  });
  useSubscription(LeadLiveDocument, { campaign_id: campaign.id }, (data) => apply(data.leadUpdated));
  const reload = useBatched<unknown>(() => void leads.refetch(), 500);

  return (
    <section aria-labelledby="leads-title">
      <header className="section-head">
        <h2 id="leads-title">Leads</h2>
        <div className="head-actions">
          <button type="button" className="secondary" aria-expanded={adding} onClick={() => setAdding(!adding)}>
            Add lead
          </button>
          <button type="button" className="secondary" aria-expanded={importing} onClick={() => setImporting(!importing)}>
            Import CSV
          </button>
          <DownloadButton path={`/user/campaigns/${campaign.id}/leads.csv`} fileName={`campaign-${campaign.id}-leads.csv`}>
            Export results
          </DownloadButton>
        </div>
      </header>
      {importing && (
        <LeadImportPanel
          campaignId={campaign.id}
          onProgress={() => {
            onImported();
            reload(null);
          }}
          onClose={() => setImporting(false)}
        />
      )}
      {adding && (
        <AddLead
          campaignId={campaign.id}
          onAdded={() => {
            setAdding(false);
            void leads.refetch();
          }}
        />
      )}
      <StatusCounts
        leads={campaign.stats.leads}
        picked={status}
        onPick={(picked) => {
          setStatus(picked === status ? '' : picked);
          setPage(1);
        }}
      />
      <form
        className="filters"
        role="search"
        onSubmit={(event: any) => {
          event.preventDefault();
          setPhone(search.trim());
          setPage(1);
        }}
      >
        <div>
          <label htmlFor="lead-status">Status</label>
          <select
            id="lead-status"
            value={status}
            onChange={(event: any) => {
              setStatus(event.target.value);
              setPage(1);
            }}
          >
            <option value="">Any</option>
            {LEAD_STATUSES.map((item) => (
              <option key={item} value={item}>
                {item}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="lead-search">Phone number</label>
          <input id="lead-search" type="search" placeholder="+5511…" value={search} onChange={(event: any) => setSearch(event.target.value)} />
        </div>
        <button type="submit" className="secondary">
          Search
        </button>
      </form>
      <ErrorNotice error={leads.error} />
      {!leads.data ? (
        <Loading what="leads" />
      ) : leads.data.leads.data.length === 0 ? (
        <p className="empty">{status || phone ? 'No leads match.' : 'No leads yet: add one.'}</p>
      ) : (
        <div className="table-wrap">
          <table className="striped" aria-busy={leads.loading ? 'true' : undefined}>
            <thead>
              <tr>
                <th scope="col">Phone number</th>
                <th scope="col">Status</th>
                <th scope="col" className="num">
                  Attempts
                </th>
                <th scope="col">Next attempt</th>
                <th scope="col">Variables</th>
                <th scope="col">
                  <span className="visually-hidden">Details</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {leads.data.leads.data.map((lead) => (
                <LeadRow key={lead.id} lead={lead} campaignId={campaign.id} open={open === lead.id} onToggle={() => setOpen(open === lead.id ? null : lead.id)} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager page={leads.data?.leads} onPage={setPage} label="Lead" />
    </section>
  );
}

interface LeadRowProps {
  lead: { id: number; phone_number: string; status: string; attempts: number; next_attempt_at?: string | null; variables: Record<string, unknown> };
  campaignId: number;
  open: boolean;
  onToggle: () => void;
}

function LeadRow({ lead, campaignId, open, onToggle }: LeadRowProps) {
  const variables = Object.entries(lead.variables);
  return (
    <>
      <tr data-lead={lead.id}>
        <td className="mono">{lead.phone_number}</td>
        <td>
          <Status value={lead.status} />
        </td>
        <td className="num">{lead.attempts}</td>
        <td>{lead.next_attempt_at ? formatTime(lead.next_attempt_at) : '—'}</td>
        <td className="vars">{variables.length ? variables.map(([key, value]) => `${key}: ${String(value)}`).join(', ') : '—'}</td>
        <td>
          <button type="button" className="link" aria-expanded={open} aria-label={`Calls of ${lead.phone_number}`} onClick={onToggle}>
            {open ? 'Hide' : 'Calls'}
          </button>
        </td>
      </tr>
      {open && (
        <tr className="detail-row">
          <td colSpan={6}>
            <LeadDetail id={lead.id} campaignId={campaignId} phone={lead.phone_number} />
          </td>
        </tr>
      )}
    </>
  );
}

function LeadDetail({ id, campaignId, phone }: { id: number; campaignId: number; phone: string }) {
  const detail = useQuery(LeadDetailDocument, { id, campaign_id: campaignId, phone_number: phone });
  if (detail.error) return <ErrorNotice error={detail.error} />;
  if (!detail.data) return <Loading what="the lead’s calls" />;
  const { lead, calls } = detail.data;
  const ownCalls = calls.data.filter((call) => call.lead_id === null || call.lead_id === id);
  return (
    <div className="lead-detail">
      <p>
        {lead.attempts} attempt{lead.attempts === 1 ? '' : 's'}
        {lead.secondary_contacts.length > 0 && <> · also reachable at {lead.secondary_contacts.map((contact) => `${contact.phone_number} (${contact.status})`).join(', ')}</>}
      </p>
      {ownCalls.length === 0 ? (
        <p className="muted">No calls yet.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Attempt</th>
              <th scope="col">Call</th>
              <th scope="col">Status</th>
              <th scope="col" className="num">
                Duration
              </th>
              <th scope="col" className="num">
                Cost
              </th>
              <th scope="col">When</th>
            </tr>
          </thead>
          <tbody>
            {ownCalls.map((call) => (
              <tr key={call.id}>
                <td>{call.attempt ?? '—'}</td>
                <td>
                  <Link href={`/calls/${call.id}`}>#{call.id}</Link>
                </td>
                <td>
                  <Status value={call.status} />
                </td>
                <td className="num">{formatDuration(call.duration)}</td>
                <td className="num">{formatMoney(call.total_cost)}</td>
                <td>{formatTime(call.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

const LEAD_FIELDS: FieldSpec[] = [
  { name: 'phone_number', label: 'Phone number', kind: 'text', required: true, hint: 'E.164 (+5511987654321), or national in the server’s default region.' },
  { name: 'variables', label: 'Variables', kind: 'json', hint: 'JSON: customer_name, email, or anything the assistant should know.' },
  { name: 'allow_dupplicate', label: 'Allow a number the campaign already has', kind: 'checkbox' },
];

function AddLead({ campaignId, onAdded }: { campaignId: number; onAdded: () => void }) {
  const create = useMutation(CreateLeadDocument);
  const [values, setValues] = useState<Values>({ phone_number: '', variables: '', allow_dupplicate: false });
  const [localErrors, setLocalErrors] = useState<Record<string, string[]>>({});
  async function submit(event: any) {
    event.preventDefault();
    const { input, errors } = toInput(LEAD_FIELDS, values);
    setLocalErrors(errors);
    if (Object.keys(errors).length) return;
    if (await create.run({ input: { ...(input as { phone_number: string }), campaign_id: campaignId } })) onAdded();
  }
  return (
    <form className="panel" onSubmit={submit} noValidate aria-label="Add lead">
      {create.error && !Object.keys(create.error.fields).length && <ErrorNotice error={create.error} />}
      <Fields specs={LEAD_FIELDS} values={values} errors={{ ...(create.error?.fields ?? {}), ...localErrors }} onChange={(name, value) => setValues({ ...values, [name]: value })} idPrefix="lead" />
      <div className="form-actions">
        <button type="submit" aria-busy={create.running ? 'true' : undefined}>
          Add lead
        </button>
      </div>
    </form>
  );
}
