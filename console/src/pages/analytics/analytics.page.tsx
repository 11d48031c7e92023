import './analytics.css';
import { useMemo, useState } from 'react';
import { Link } from 'wouter';
import { useQuery } from '../../api/hooks';
import type { ConsoleAnalyticsQuery } from '../../gql/graphql';
import { ErrorNotice, Loading } from '../../ui/notice';
import { ChartFigure, type FigureColumn } from './analytics.figure';
import { formatCount, formatMoney, formatMs, formatRate, formatSeconds } from './analytics.format';
import { AnalyticsDocument, AnalyticsFiltersDocument } from './analytics.operations';
import { dayOf, PERIODS, periodOf, type PeriodKind } from './analytics.period';
import { DASHED, DOTTED, SOLID, type ChartSeries } from './analytics.series';

type Result = ConsoleAnalyticsQuery['analytics'];
type Bucket = Result['buckets'][number];
type Totals = Result['totals'];
type Column = FigureColumn<Bucket, Totals>;

const DAY = 86_400_000;
const BLUE = '#4338ca';
const AMBER = '#b45309';
const TEAL = '#0f766e';

/**
 * How the account's calls are going (the console's first page): the `analytics` query over
 * a period, filtered by campaign and assistant, as charts with their tables, the campaigns'
 * funnels and the pipeline engine's latency per assistant.
 */
export function AnalyticsPage() {
  const [kind, setKind] = useState<PeriodKind>('7d');
  const [range, setRange] = useState(() => ({ from: dayOf(Date.now() - 6 * DAY), to: dayOf(Date.now()) }));
  const [campaign, setCampaign] = useState('');
  const [assistant, setAssistant] = useState('');
  // The period is fixed when it is chosen (not at each render), so that the query stays the same.
  const period = useMemo(() => periodOf(kind, range), [kind, range]);
  const filters = useQuery(AnalyticsFiltersDocument);
  const variables = period ? { ...period, campaign_id: campaign ? Number(campaign) : null, assistant_id: assistant ? Number(assistant) : null } : undefined;
  const analytics = useQuery(AnalyticsDocument, variables!, { skip: !period });
  const data = analytics.error ? undefined : analytics.data?.analytics;
  return (
    <>
      <header className="page-head">
        <h1>Analytics</h1>
      </header>
      <form className="analytics-filters" aria-label="Analytics filters" onSubmit={(event: any) => event.preventDefault()}>
        <fieldset className="analytics-periods">
          <legend>Period</legend>
          {PERIODS.map((option) => (
            <label key={option.kind}>
              <input type="radio" name="period" value={option.kind} checked={kind === option.kind} onChange={() => setKind(option.kind)} />
              {option.label}
            </label>
          ))}
        </fieldset>
        {kind === 'custom' && (
          <fieldset className="analytics-range">
            <legend>Custom range (UTC days, both included)</legend>
            <div className="analytics-field">
              <label htmlFor="analytics-from">From</label>
              <input id="analytics-from" type="date" value={range.from} onChange={(event: any) => setRange({ ...range, from: event.target.value })} />
            </div>
            <div className="analytics-field">
              <label htmlFor="analytics-to">To</label>
              <input id="analytics-to" type="date" value={range.to} onChange={(event: any) => setRange({ ...range, to: event.target.value })} />
            </div>
          </fieldset>
        )}
        <div className="analytics-field">
          <label htmlFor="analytics-campaign">Campaign</label>
          <select id="analytics-campaign" value={campaign} onChange={(event: any) => setCampaign(event.target.value)}>
            <option value="">All campaigns</option>
            {filters.data?.campaigns.map((one) => (
              <option key={one.id} value={one.id}>
                {one.name}
              </option>
            ))}
          </select>
        </div>
        <div className="analytics-field">
          <label htmlFor="analytics-assistant">Assistant</label>
          <select id="analytics-assistant" value={assistant} onChange={(event: any) => setAssistant(event.target.value)}>
            <option value="">All assistants</option>
            {filters.data?.assistants.map((one) => (
              <option key={one.id} value={one.id}>
                {one.assistant_name}
              </option>
            ))}
          </select>
        </div>
      </form>
      <ErrorNotice error={filters.error} />
      {/* A range the API refuses (backwards, too long): its messages about the period, not the generic sentence. */}
      {analytics.error && Object.keys(analytics.error.fields).length > 0 ? (
        <p className="notice notice-error" role="alert">
          {Object.values(analytics.error.fields).flat().join(' ')}
        </p>
      ) : (
        <ErrorNotice error={analytics.error} />
      )}
      {!period ? (
        <p className="muted">Choose both days of the range.</p>
      ) : !data ? (
        !analytics.error && <Loading what="the analytics" />
      ) : (
        <Figures data={data} query={analytics.loading ? undefined : JSON.stringify(variables)} />
      )}
    </>
  );
}

/** `query`: the variables the figures answer, once they do (not while the next answer loads). */
function Figures({ data, query }: { data: Result; query: string | undefined }) {
  const x = useMemo(() => data.buckets.map((bucket) => Date.parse(String(bucket.start)) / 1000), [data]);
  const column = (key: keyof Totals & keyof Bucket, label: string, format: (value: any) => string): Column => ({
    key,
    label,
    cell: (bucket) => format(bucket[key]),
    total: (totals) => format(totals[key]),
  });
  const charts = useMemo(() => chartsOf(data), [data]);
  const { totals } = data;
  return (
    <div className="analytics-figures" aria-busy={query ? undefined : 'true'} data-query={query}>
      <p className="analytics-period muted">
        {utc(data.from)} to {utc(data.to)} UTC, by {data.bucket}.
      </p>
      <section aria-label="The whole period">
        <dl className="analytics-totals">
          <Total label="Calls" figure="calls" value={formatCount(totals.calls)} />
          <Total label="Minutes" figure="minutes" value={formatCount(totals.minutes)} />
          <Total label="Answer rate" figure="answer_rate" value={formatRate(totals.answer_rate)} />
          <Total label="Voicemail rate" figure="voicemail_rate" value={formatRate(totals.voicemail_rate)} />
          <Total label="No-answer rate" figure="no_answer_rate" value={formatRate(totals.no_answer_rate)} />
          <Total label="Average duration" figure="average_duration" value={formatSeconds(totals.average_duration)} />
          <Total label="Cost" figure="cost" value={formatMoney(totals.cost)} />
          <Total label="Cost per answered call" figure="cost_per_answered_call" value={formatMoney(totals.cost_per_answered_call)} />
          <Total label="Transfers" figure="transfers" value={formatCount(totals.transfers)} />
        </dl>
      </section>
      <div className="analytics-grid">
        {[
          { title: 'Calls and minutes', series: charts.volume, columns: [column('calls', 'Calls', formatCount), column('minutes', 'Minutes', formatCount)] },
          {
            title: 'Outcomes',
            series: charts.rates,
            columns: [column('answer_rate', 'Answer rate', formatRate), column('voicemail_rate', 'Voicemail rate', formatRate), column('no_answer_rate', 'No-answer rate', formatRate)],
          },
          { title: 'Cost', series: charts.cost, columns: [column('cost', 'Cost', formatMoney), column('cost_per_answered_call', 'Cost per answered call', formatMoney)] },
          {
            title: 'Duration and transfers',
            series: charts.duration,
            columns: [column('average_duration', 'Average duration', formatSeconds), column('transfers', 'Transfers', formatCount)],
          },
        ].map((chart) => (
          <ChartFigure key={chart.title} {...chart} bucket={data.bucket} buckets={data.buckets} totals={totals} x={x} />
        ))}
      </div>
      <Funnels funnels={data.funnels} />
      <Latency latency={data.latency} />
    </div>
  );
}

/** The API's DateTime (an ISO 8601 string) as "YYYY-MM-DD HH:MM" in UTC. */
const utc = (value: unknown) => new Date(String(value)).toISOString().slice(0, 16).replace('T', ' ');

function Total({ label, figure, value }: { label: string; figure: string; value: string }) {
  return (
    <div className="analytics-total" data-figure={figure}>
      <dt>{label}</dt>
      <dd>{value}</dd>
    </div>
  );
}

const count = (value: number) => formatCount(value);
const whole = (value: number) => String(value);

/**
 * The charts' lines. Money is placed on the axis as the number the API sent (a chart has no
 * use for more precision than a pixel); every figure a person reads is the API's own, in the
 * tables and totals.
 */
function chartsOf(data: Result): Record<'volume' | 'rates' | 'cost' | 'duration', ChartSeries[]> {
  const of = <K extends keyof Bucket>(key: K) => data.buckets.map((bucket) => bucket[key] as number | null);
  const percent = (value: number) => `${Math.round(value * 100)}%`;
  return {
    volume: [
      { label: 'Calls', values: of('calls'), color: BLUE, dash: SOLID, marker: 'filled', tick: count },
      { label: 'Minutes', values: of('minutes'), color: AMBER, dash: DASHED, marker: 'hollow', axis: 'right', tick: count },
    ],
    rates: [
      { label: 'Answer rate', values: of('answer_rate'), color: BLUE, dash: SOLID, marker: 'filled', tick: percent, max: 1 },
      { label: 'Voicemail rate', values: of('voicemail_rate'), color: AMBER, dash: DASHED, marker: 'hollow', tick: percent, max: 1 },
      { label: 'No-answer rate', values: of('no_answer_rate'), color: TEAL, dash: DOTTED, marker: 'filled', tick: percent, max: 1 },
    ],
    cost: [
      { label: 'Cost', values: of('cost'), color: BLUE, dash: SOLID, marker: 'filled', tick: (value) => formatMoney(value) },
      { label: 'Cost per answered call', values: of('cost_per_answered_call'), color: AMBER, dash: DASHED, marker: 'hollow', axis: 'right', tick: (value) => formatMoney(value) },
    ],
    duration: [
      { label: 'Average duration (s)', values: of('average_duration'), color: BLUE, dash: SOLID, marker: 'filled', tick: whole },
      { label: 'Transfers', values: of('transfers'), color: AMBER, dash: DASHED, marker: 'hollow', axis: 'right', tick: count },
    ],
  };
}

const STAGES = [
  { key: 'leads', label: 'Leads' },
  { key: 'dialled', label: 'Dialled' },
  { key: 'answered', label: 'Answered' },
  { key: 'completed', label: 'Completed' },
  { key: 'transferred', label: 'Transferred' },
] as const;

/** Each campaign's leads through the period, as labelled bars and as a table. */
function Funnels({ funnels }: { funnels: Result['funnels'] }) {
  return (
    <section aria-labelledby="funnels-title" className="analytics-section">
      <h2 id="funnels-title">Campaign funnels</h2>
      {funnels.length === 0 ? (
        <p className="empty">No campaign calls in this period.</p>
      ) : (
        <>
          <div className="analytics-funnels" aria-hidden="true">
            {funnels.map((funnel) => (
              <div className="analytics-funnel" key={funnel.campaign_id}>
                <h3>{funnel.campaign_name}</h3>
                {STAGES.map((stage) => (
                  <div className="funnel-row" key={stage.key}>
                    <span className="funnel-label">{stage.label}</span>
                    <span className="funnel-track">
                      <span className="funnel-bar" style={{ width: `${funnel.leads ? Math.min(100, (funnel[stage.key] / funnel.leads) * 100) : 0}%` }} />
                    </span>
                    <span className="funnel-value">{formatCount(funnel[stage.key])}</span>
                  </div>
                ))}
              </div>
            ))}
          </div>
          <div className="table-wrap">
            <table className="striped analytics-table" data-table="funnels">
              <caption>Leads of each campaign with calls in the period: leads now, then how far they got in the period</caption>
              <thead>
                <tr>
                  <th scope="col">Campaign</th>
                  {STAGES.map((stage) => (
                    <th scope="col" className="num" key={stage.key}>
                      {stage.label}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {funnels.map((funnel) => (
                  <tr key={funnel.campaign_id} data-campaign={funnel.campaign_id}>
                    <th scope="row">
                      <Link href={`/campaigns/${funnel.campaign_id}`}>{funnel.campaign_name}</Link>
                    </th>
                    {STAGES.map((stage) => (
                      <td className="num" key={stage.key} data-figure={stage.key}>
                        {formatCount(funnel[stage.key])}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}

/** Voice-to-voice latency of the pipeline engine per assistant (histogram percentiles). */
function Latency({ latency }: { latency: Result['latency'] }) {
  return (
    <section aria-labelledby="latency-title" className="analytics-section">
      <h2 id="latency-title">Latency of pipeline calls</h2>
      {latency.length === 0 ? (
        <p className="empty">No measured pipeline answers in this period.</p>
      ) : (
        <div className="table-wrap">
          <table className="striped analytics-table" data-table="latency">
            <caption>Voice to voice, from the caller's end of speech to the first audio of the answer, per assistant</caption>
            <thead>
              <tr>
                <th scope="col">Assistant</th>
                <th scope="col" className="num">
                  Calls
                </th>
                <th scope="col" className="num">
                  Answers measured
                </th>
                <th scope="col" className="num">
                  p50
                </th>
                <th scope="col" className="num">
                  p95
                </th>
              </tr>
            </thead>
            <tbody>
              {latency.map((row) => (
                <tr key={row.assistant_id} data-assistant={row.assistant_id}>
                  <th scope="row">{row.assistant_name ? <Link href={`/assistants/${row.assistant_id}`}>{row.assistant_name}</Link> : `#${row.assistant_id} (deleted)`}</th>
                  <td className="num" data-figure="calls">
                    {formatCount(row.calls)}
                  </td>
                  <td className="num" data-figure="turns">
                    {formatCount(row.turns)}
                  </td>
                  <td className="num" data-figure="p50_ms">
                    {formatMs(row.p50_ms)}
                  </td>
                  <td className="num" data-figure="p95_ms">
                    {formatMs(row.p95_ms)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <p className="muted small">Each percentile is the upper edge of its histogram bucket: at most 25 ms above the exact value below 1 s, 100 ms to 3 s, 500 ms to 10 s.</p>
        </div>
      )}
    </section>
  );
}
