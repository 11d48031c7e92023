import { useState } from 'react';
import { useBatched, useQuery, useSubscription } from '../../api/hooks';
import { formatMoney, formatTime } from '../../ui/format';
import { ErrorNotice, Loading } from '../../ui/notice';
import { AccountCallsDocument, MeDocument } from './account.operations';

const PAGE = 20;
/** The API answers the latest 100 changes at most (me.ledger's limit). */
const MAX = 100;

/** The account: its balance and the balance's history (the ledger), live as calls end. */
export function OverviewPage() {
  const [limit, setLimit] = useState(PAGE);
  const me = useQuery(MeDocument, { limit });
  const refresh = useBatched<unknown>(() => void me.refetch(), 1000);
  useSubscription(AccountCallsDocument, {}, (data) => {
    if (!['initiated', 'ringing', 'in-progress'].includes(data.callUpdated.status)) refresh(null);
  });
  const ledger = me.data?.me.ledger ?? [];
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
              <p className="card-value" data-testid="balance">
                {formatMoney(me.data.me.balance)}
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
            {ledger.length === 0 ? (
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
                      <tr key={entry.id}>
                        <td>{formatTime(entry.created_at)}</td>
                        <td>{entry.kind.replace(/_/g, ' ')}</td>
                        <td>{entry.reference ?? '—'}</td>
                        <td className={`num ${entry.amount < 0 ? 'debit' : 'credit'}`}>{formatMoney(entry.amount)}</td>
                        <td className="num">{formatMoney(entry.balance_after)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
            {ledger.length === limit && limit < MAX && (
              <button type="button" className="secondary outline" aria-busy={me.loading ? 'true' : undefined} onClick={() => setLimit(Math.min(MAX, limit + PAGE))}>
                Show older changes
              </button>
            )}
            {ledger.length === MAX && <p className="muted">The latest {MAX} changes are shown.</p>}
          </section>
        </>
      )}
    </>
  );
}
