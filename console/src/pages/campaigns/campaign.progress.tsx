import { formatCount } from '../../ui/format';

/** The seven lead statuses, in the order a lead moves through them. */
export const LEAD_STATUSES = ['created', 'scheduled', 'processing', 'rescheduled', 'completed', 'reached-max-retries', 'blacklisted'] as const;
/** Leads the dialer is done with. */
const DONE = new Set(['completed', 'reached-max-retries', 'blacklisted']);

export function leadCounts(leads: Record<string, unknown>): { total: number; done: number; byStatus: Record<string, number> } {
  const byStatus: Record<string, number> = {};
  let total = 0;
  let done = 0;
  for (const status of LEAD_STATUSES) {
    const count = Number(leads[status] ?? 0);
    byStatus[status] = count;
    total += count;
    if (DONE.has(status)) done += count;
  }
  return { total, done, byStatus };
}

export function CampaignProgress({ leads, label }: { leads: Record<string, unknown>; label: string }) {
  const { total, done } = leadCounts(leads);
  const percent = total === 0 ? 0 : Math.round((done / total) * 100);
  return (
    <div className="progress-line">
      <progress value={done} max={Math.max(total, 1)} aria-label={`${label}: ${done} of ${total} leads done`} />
      <span className="progress-text">
        {percent}% · {formatCount(done)} / {formatCount(total)}
      </span>
    </div>
  );
}

/** Leads by status as a row of counts; with `onPick`, each is a filter. */
export function StatusCounts({ leads, picked, onPick }: { leads: Record<string, unknown>; picked?: string; onPick?: (status: string) => void }) {
  const { byStatus } = leadCounts(leads);
  return (
    <dl className="counts">
      {LEAD_STATUSES.map((status) => (
        <div key={status} className={`count count-${status}${picked === status ? ' picked' : ''}`} data-status={status}>
          <dt>{status.replace(/-/g, ' ')}</dt>
          <dd>
            {onPick ? (
              <button type="button" className="link" aria-pressed={picked === status} onClick={() => onPick(status)}>
                {formatCount(byStatus[status])}
              </button>
            ) : (
              formatCount(byStatus[status])
            )}
          </dd>
        </div>
      ))}
    </dl>
  );
}
