import { useState } from 'react';
import { Link } from 'wouter';
import { useQuery, useSubscription } from '../../api/hooks';
import type { ConsoleCampaignFieldsFragment } from '../../gql/graphql';
import { formatCount, formatMoney } from '../../ui/format';
import { Empty, ErrorNotice, Loading } from '../../ui/notice';
import { Status } from '../../ui/status';
import { StartStop } from './campaign.actions';
import { CampaignWindow } from './campaign.window';
import { CampaignProgress, StatusCounts } from './campaign.progress';
import { CampaignLiveDocument, CampaignsDocument } from './campaigns.operations';

/** Cards on one page of the board: each follows its campaign live (one subscription a card). */
const PER_PAGE = 12;

/** The board: every campaign's status and progress, live. */
export function CampaignsPage() {
  const campaigns = useQuery(CampaignsDocument);
  const [page, setPage] = useState(1);
  const all = campaigns.data?.campaigns ?? [];
  // Newest first: the campaign being worked on is usually the latest.
  const sorted = [...all].reverse();
  const lastPage = Math.max(1, Math.ceil(sorted.length / PER_PAGE));
  const shown = sorted.slice((page - 1) * PER_PAGE, page * PER_PAGE);
  return (
    <>
      <header className="page-head">
        <h1>Campaigns</h1>
        <Link href="/campaigns/new" role="button">
          New campaign
        </Link>
      </header>
      <ErrorNotice error={campaigns.error} />
      {!campaigns.data ? (
        <Loading what="campaigns" />
      ) : all.length === 0 ? (
        <Empty>No campaigns yet. Create one, add leads, and start it.</Empty>
      ) : (
        <>
          <ul className="board" aria-label="Campaigns">
            {shown.map((campaign) => (
              <CampaignCard key={campaign.id} initial={campaign} />
            ))}
          </ul>
          {lastPage > 1 && (
            <nav className="pager" aria-label="Campaign pages">
              <span>
                Page {page} of {lastPage}
              </span>
              <div role="group">
                <button type="button" className="secondary outline" disabled={page <= 1} onClick={() => setPage(page - 1)}>
                  Previous
                </button>
                <button type="button" className="secondary outline" disabled={page >= lastPage} onClick={() => setPage(page + 1)}>
                  Next
                </button>
              </div>
            </nav>
          )}
        </>
      )}
    </>
  );
}

function CampaignCard({ initial }: { initial: ConsoleCampaignFieldsFragment }) {
  const [campaign, setCampaign] = useState(initial);
  const error = useSubscription(CampaignLiveDocument, { id: initial.id }, (data) => setCampaign(data.campaignUpdated));
  const stats = campaign.stats;
  return (
    <li className="campaign-card" data-campaign={campaign.id} aria-labelledby={`campaign-${campaign.id}-name`}>
      <header>
        <h2 id={`campaign-${campaign.id}-name`}>
          <Link href={`/campaigns/${campaign.id}`}>{campaign.name}</Link>
        </h2>
        <Status value={campaign.status} />
      </header>
      {campaign.paused_reason && campaign.status === 'paused' && <p className="muted">Paused: {campaign.paused_reason.replace(/_/g, ' ')}</p>}
      <p className="card-window small">
        <CampaignWindow campaign={campaign} />
      </p>
      <CampaignProgress leads={stats.leads} label={campaign.name} />
      <StatusCounts leads={stats.leads} />
      <dl className="facts">
        <div>
          <dt>In progress</dt>
          <dd data-fact="calls_in_progress">{formatCount(stats.calls_in_progress)}</dd>
        </div>
        <div>
          <dt>Attempts</dt>
          <dd data-fact="attempts">{formatCount(stats.attempts)}</dd>
        </div>
        <div>
          <dt>Cost</dt>
          <dd data-fact="total_cost">{formatMoney(stats.total_cost)}</dd>
        </div>
      </dl>
      {error && <p className="muted">Live updates paused: {error.message}</p>}
      <footer>
        <StartStop id={campaign.id} name={campaign.name} status={campaign.status} />
        <Link href={`/campaigns/${campaign.id}/edit`} className="secondary" aria-label={`Edit ${campaign.name}`}>
          Edit
        </Link>
      </footer>
    </li>
  );
}
