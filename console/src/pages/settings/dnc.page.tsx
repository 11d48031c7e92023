import { useState } from 'react';
import { useMutation, useQuery } from '../../api/hooks';
import { formatTime } from '../../ui/format';
import { Empty, ErrorNotice, Loading } from '../../ui/notice';
import { Pager } from '../../ui/pager';
import { AddDncDocument, DncDocument, RemoveDncDocument } from './settings.operations';

const PER_PAGE = 50;

/** The do-not-call list: no call and no SMS reach these numbers. */
export function DncPage() {
  const list = useQuery(DncDocument);
  const add = useMutation(AddDncDocument);
  const remove = useMutation(RemoveDncDocument);
  const [number, setNumber] = useState('');
  const [page, setPage] = useState(1);
  const all = list.data?.dncNumbers ?? [];
  const lastPage = Math.max(1, Math.ceil(all.length / PER_PAGE));
  const shown = all.slice((page - 1) * PER_PAGE, page * PER_PAGE);
  const fieldError = add.error?.fields.phone_number;
  return (
    <>
      <header className="page-head">
        <h1>Do-not-call list</h1>
      </header>
      <p className="muted lead">No call and no SMS reach these numbers; their leads are blacklisted.</p>
      <form
        className="filters panel"
        noValidate
        onSubmit={async (event: any) => {
          event.preventDefault();
          if ((await add.run({ phone_number: number.trim() })) !== null) {
            setNumber('');
            void list.refetch();
          }
        }}
      >
        <div className="grow">
          <label htmlFor="dnc-number">Phone number</label>
          <input
            id="dnc-number"
            value={number}
            onChange={(event: any) => setNumber(event.target.value)}
            aria-invalid={fieldError ? 'true' : undefined}
            aria-describedby={fieldError ? 'dnc-number-error' : undefined}
          />
          {fieldError && (
            <small id="dnc-number-error" className="field-error">
              {fieldError.join(' ')}
            </small>
          )}
        </div>
        <button type="submit" aria-busy={add.running ? 'true' : undefined}>
          Add to the list
        </button>
      </form>
      {add.error && !fieldError && <ErrorNotice error={add.error} />}
      <ErrorNotice error={list.error ?? remove.error} />
      {!list.data ? (
        <Loading what="the list" />
      ) : all.length === 0 ? (
        <Empty>The list is empty.</Empty>
      ) : (
        <>
          <div className="table-wrap">
            <table className="striped">
              <thead>
                <tr>
                  <th scope="col">Number</th>
                  <th scope="col">Added</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {shown.map((entry) => (
                  <tr key={entry.phone_number}>
                    <td className="mono">{entry.phone_number}</td>
                    <td>{formatTime(entry.created_at)}</td>
                    <td className="actions">
                      <button
                        type="button"
                        className="secondary outline small"
                        aria-label={`Remove ${entry.phone_number}`}
                        onClick={async () => (await remove.run({ phone_number: entry.phone_number })) !== null && void list.refetch()}
                      >
                        Remove
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={{ current_page: page, last_page: lastPage, total: all.length, from: (page - 1) * PER_PAGE + 1, to: (page - 1) * PER_PAGE + shown.length }} onPage={setPage} label="Do-not-call" />
        </>
      )}
    </>
  );
}
