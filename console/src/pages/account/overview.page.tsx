import { Link } from 'wouter';
import { useBatched, useQuery, useSubscription } from '../../api/hooks';
import { formatMoney, formatTime } from '../../ui/format';
import { ErrorNotice, Loading } from '../../ui/notice';
import { AccountCallsDocument, MeDocument } from './account.operations';
import { useLedgerFeed } from './ledger.feed';

/** The account: its balance and the balance's whole history (the ledger, a slice at a time), live as calls end. */
export function OverviewPage() {
  const me = useQuery(MeDocument);
  const feed = useLedgerFeed();
  const refresh = useBatched<unknown>(() => {
    void me.refetch();
    void feed.refresh();
  }, 1000);
  useSubscription(AccountCallsDocument, {}, (data) => {
    if (!['initiated', 'ringing', 'in-progress'].includes(data.callUpdated.status)) refresh(null);
  });
  const ledger = feed.entries;
  return (
    <>
      <header className="page-head">
        <h1>Overview</h1>
      </header>
      <ErrorNotice error={me.error} />
      {!me.data ? (
        <Loading what="your account" />
      ) : (
        <>
          <section className="cards" aria-label="Account">
            <article className="card">
              <h2 className="card-label">Balance</h2>
              <p className="card-value">
                <span data-testid="balance">{formatMoney(me.data.me.balance)}</span> <abbr className="currency" data-testid="currency" title="ISO 4217 currency code">{me.data.me.currency}</abbr>
              </p>
            </article>
            <article className="card">
              <h2 className="card-label">Account</h2>
              <p className="card-value small">{me.data.me.name}</p>
              <p className="muted">{me.data.me.email ?? `Account #${me.data.me.id}`}</p>
            </article>
          </section>
          <section aria-labelledby="ledger-title">
            <h2 id="ledger-title">Balance history</h2>
            <ErrorNotice error={feed.error} />
            {!feed.loaded ? (
              !feed.error && <Loading what="the balance history" />
            ) : ledger.length === 0 ? (
              <p className="empty">No changes to the balance yet.</p>
            ) : (
              <div className="table-wrap">
                <table className="striped">
                  <thead>
                    <tr>
                      <th scope="col">When</th>
                      <th scope="col">Kind</th>
                      <th scope="col">Reference</th>
                      <th scope="col" className="num">
                        Amount
                      </th>
                      <th scope="col" className="num">
                        Balance after
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {ledger.map((entry) => (
                      <tr key={entry.id} data-entry={entry.id}>
                        <td>{formatTime(entry.created_at)}</td>
                        <td>{entry.kind.replace(/_/g, ' ')}</td>
                        <td>
                          <Reference value={entry.reference} />
                        </td>
                        <td className={`num ${entry.amount < 0 ? 'debit' : 'credit'}`}>{formatMoney(entry.amount)}</td>
                        <td className="num">{formatMoney(entry.balance_after)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
            {feed.hasOlder && (
              <button type="button" className="secondary outline" aria-busy={feed.busy ? 'true' : undefined} disabled={feed.busy} onClick={() => void feed.showOlder()}>
                Show older changes
              </button>
            )}
            {feed.loaded && !feed.hasOlder && ledger.length > 0 && <p className="muted">That is the whole history ({ledger.length} changes).</p>}
          </section>
        </>
      )}
    </>
  );
}

/** What caused a ledger entry ("call:7", "sms:12"): a call links to its page. */
function Reference({ value }: { value: string | null }) {
  const call = value ? /^call:(\d+)$/.exec(value) : null;
  if (call) return <Link href={`/calls/${call[1]}`}>Call #{call[1]}</Link>;
  return <>{value ?? '—'}</>;
}
