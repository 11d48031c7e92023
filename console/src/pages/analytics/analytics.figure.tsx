import { lazy, Suspense, useId, useState } from 'react';
import type { ChartSeries } from './analytics.series';
import { bucketLabel } from './analytics.period';

const Chart = lazy(() => import('./analytics.chart'));

export interface FigureColumn<B, T> {
  label: string;
  /** The figure's key, on each cell as data-figure (what tests and scripts read). */
  key: string;
  cell: (bucket: B) => string;
  total: (totals: T) => string;
}

interface FigureProps<B extends { start: unknown }, T> {
  title: string;
  bucket: string;
  buckets: B[];
  totals: T;
  x: number[];
  series: ChartSeries[];
  columns: FigureColumn<B, T>[];
}

/**
 * A chart and the same figures as a table: the table is always in the page for screen
 * readers (the chart is hidden from them) and shown on screen with the "Table" toggle.
 */
export function ChartFigure<B extends { start: unknown }, T>({ title, bucket, buckets, totals, x, series, columns }: FigureProps<B, T>) {
  const [asTable, setAsTable] = useState(false);
  const id = useId();
  return (
    <section className="analytics-figure" aria-labelledby={`${id}-title`}>
      <header className="analytics-figure-head">
        <h2 id={`${id}-title`}>{title}</h2>
        <button type="button" className="secondary outline small" aria-pressed={asTable} aria-controls={`${id}-table`} onClick={() => setAsTable(!asTable)}>
          Table
        </button>
      </header>
      {!asTable && (
        <>
          <Legend series={series} />
          <Suspense fallback={<div className="analytics-chart" aria-hidden="true" />}>
            <Chart x={x} series={series} />
          </Suspense>
        </>
      )}
      <div id={`${id}-table`} className={asTable ? 'table-wrap' : 'visually-hidden'}>
        <table className="striped analytics-table">
          <caption>
            {title}, by {bucket === 'hour' ? 'hour' : 'day'} (UTC)
          </caption>
          <thead>
            <tr>
              <th scope="col">{bucket === 'hour' ? 'Hour (UTC)' : 'Day (UTC)'}</th>
              {columns.map((column) => (
                <th scope="col" className="num" key={column.key}>
                  {column.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {buckets.map((row) => (
              <tr key={String(row.start)} data-start={new Date(String(row.start)).toISOString()}>
                <th scope="row">{bucketLabel(String(row.start), bucket)}</th>
                {columns.map((column) => (
                  <td className="num" key={column.key} data-figure={column.key}>
                    {column.cell(row)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr data-start="total">
              <th scope="row">Whole period</th>
              {columns.map((column) => (
                <td className="num" key={column.key} data-figure={column.key}>
                  {column.total(totals)}
                </td>
              ))}
            </tr>
          </tfoot>
        </table>
      </div>
    </section>
  );
}

/** Each line's name beside a sample of it: its dash and marker tell it apart without colour. */
function Legend({ series }: { series: ChartSeries[] }) {
  return (
    <ul className="analytics-legend">
      {series.map((one) => (
        <li key={one.label}>
          <svg width="34" height="12" viewBox="0 0 34 12" aria-hidden="true">
            <line x1="1" y1="6" x2="33" y2="6" stroke={one.color} strokeWidth="2" strokeDasharray={one.dash.length ? one.dash.join(' ') : undefined} />
            <circle cx="17" cy="6" r="4" stroke={one.color} strokeWidth="2" fill={one.marker === 'hollow' ? '#ffffff' : one.color} />
          </svg>
          {one.label}
          {one.axis === 'right' ? ' (right axis)' : ''}
        </li>
      ))}
    </ul>
  );
}
