import type { ReactNode } from 'react';
import { Empty, Loading } from './notice';

/**
 * A list page's table: "Loading…" until its rows come, a sentence when there are none, else the
 * rows under their column headers. An empty header names a column of row actions, for screen
 * readers only.
 */
export function DataTable<T>({
  rows,
  what,
  empty,
  columns,
  children,
}: {
  rows: readonly T[] | null | undefined;
  /** What is loading, as in "Loading tools…". */
  what: string;
  empty: string;
  columns: readonly string[];
  /** A row: a <tr> with its key. */
  children: (row: T) => ReactNode;
}) {
  if (!rows) return <Loading what={what} />;
  if (rows.length === 0) return <Empty>{empty}</Empty>;
  return (
    <div className="table-wrap">
      <table className="striped">
        <thead>
          <tr>
            {columns.map((column, index) => (
              <th scope="col" key={index}>
                {column || <span className="visually-hidden">Actions</span>}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{rows.map((row) => children(row))}</tbody>
      </table>
    </div>
  );
}
