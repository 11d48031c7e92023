import { useEffect, useRef } from 'react';
import { useQuery, useSubscription } from '../../api/hooks';
import type { ConsoleTestResultFragment, ConsoleTestRunQuery } from '../../gql/graphql';
import { formatTime } from '../../ui/format';
import { ErrorNotice, Loading } from '../../ui/notice';
import { TestRunDocument, TestRunUpdatedDocument } from './tests.operations';

type Run = ConsoleTestRunQuery['testRun'];
const FINISHED = ['passed', 'failed', 'error'];
/** How long a run may go without an event before it is read again (a dropped socket, an end missed while subscribing). */
const QUIET_MS = 5000;

export const percent = (rate: number | null | undefined) => (rate === null || rate === undefined ? '—' : `${Math.round(rate * 100)}%`);

/** A result's status as words and a mark, never colour alone. */
export function Verdict({ status }: { status: string }) {
  const mark = status === 'passed' ? '✓' : status === 'failed' ? '✗' : status === 'error' ? '!' : '…';
  return (
    <span className={`test-verdict test-verdict-${status}`}>
      <span aria-hidden="true">{mark} </span>
      {status}
    </span>
  );
}

/** Attempts passed over attempts finished, per test, in the order the run took them. */
function passRates(run: Run): { testId: number; passed: number; finished: number }[] {
  const byTest = new Map<number, { testId: number; passed: number; finished: number }>();
  for (const result of run.results) {
    const row = byTest.get(result.test_id) ?? { testId: result.test_id, passed: 0, finished: 0 };
    row.finished++;
    if (result.status === 'passed') row.passed++;
    byTest.set(result.test_id, row);
  }
  return [...byTest.values()];
}

function ResultDetail({ result, name }: { result: ConsoleTestResultFragment; name: string }) {
  return (
    <details className="test-result" data-test-id={result.test_id} data-attempt={result.attempt} data-status={result.status} open={result.status !== 'passed'}>
      <summary>
        <Verdict status={result.status} /> {name}, attempt {result.attempt}
      </summary>
      {result.error && (
        <p className="test-result-error">
          <strong>Error:</strong> {result.error}
        </p>
      )}
      {result.criteria.length > 0 && (
        <>
          <h5>Criteria</h5>
          <ul className="test-criteria">
            {result.criteria.map((verdict, i) => (
              <li key={i} data-passed={verdict.passed ? 'true' : 'false'}>
                <Verdict status={verdict.passed ? 'passed' : 'failed'} /> <span className="test-criterion">{verdict.criterion}</span>
                <span className="test-reason">{verdict.reason}</span>
              </li>
            ))}
          </ul>
        </>
      )}
      {result.tool_calls.length > 0 && (
        <>
          <h5>Tool calls</h5>
          <ul className="test-tool-calls">
            {result.tool_calls.map((call, i) => (
              <li key={i}>
                <code>{call.name}</code> {call.mocked ? '(mocked: no HTTP request)' : '(called)'} <code className="test-json">{JSON.stringify(call.arguments)}</code>
              </li>
            ))}
          </ul>
        </>
      )}
      {result.transcript.length > 0 && (
        <>
          <h5>Transcript</h5>
          <ol className="test-transcript">
            {result.transcript.map((line, i) => (
              <li key={i} className={`test-line test-line-${line.role}`}>
                <span className="test-speaker">{line.role === 'assistant' ? 'Assistant' : 'Caller'}</span> {line.content}
              </li>
            ))}
          </ol>
        </>
      )}
      {result.latency_ms.length > 0 && <p>Answer latency per turn: {result.latency_ms.map((ms) => `${ms} ms`).join(', ')}</p>}
    </details>
  );
}

/**
 * One run: its status and pass rate, each test's pass rate across its attempts, and each
 * attempt's transcript with the verdict and reason of each criterion. Followed live over
 * `testRunUpdated` (each event carries the run as it stands) until it ends.
 */
export function TestRunView({ runId, names, onFinished }: { runId: number; names: Map<number, string>; onFinished?: () => void }) {
  const run = useQuery(TestRunDocument, { id: runId });
  const current = run.data?.testRun;
  const finished = current ? FINISHED.includes(current.status) : false;
  const lastEvent = useRef(Date.now());
  const streamError = useSubscription(
    TestRunUpdatedDocument,
    { id: runId },
    (data) => {
      lastEvent.current = Date.now();
      run.update(() => ({ testRun: data.testRunUpdated.run }));
    },
    { skip: finished },
  );
  const refetch = run.refetch;
  const started = current !== undefined;
  useEffect(() => {
    if (finished || !started) return;
    const timer = setInterval(() => {
      if (Date.now() - lastEvent.current >= QUIET_MS) {
        lastEvent.current = Date.now();
        void refetch();
      }
    }, 1000);
    return () => clearInterval(timer);
  }, [finished, started, refetch]);
  const told = useRef(false);
  useEffect(() => {
    if (finished && !told.current) {
      told.current = true;
      onFinished?.();
    }
  }, [finished, onFinished]);

  if (!current) return run.error ? <ErrorNotice error={run.error} /> : <Loading what="the run" />;
  const nameOf = (id: number) => names.get(id) ?? `Test ${id} (deleted)`;
  const rates = passRates(current);
  return (
    <section className="test-run panel" aria-labelledby={`run-${runId}-title`} data-run={runId} data-status={current.status}>
      <h3 id={`run-${runId}-title`}>Run {runId}</h3>
      <ErrorNotice error={streamError} />
      <p className="test-run-facts" aria-live="polite">
        <Verdict status={current.status} /> · {current.results.length} attempt(s) finished · pass rate <strong data-fact="pass-rate">{percent(current.pass_rate)}</strong> · started {formatTime(current.started_at)}
        {current.finished_at && <> · finished {formatTime(current.finished_at)}</>}
      </p>
      <p className="test-hash">
        Assistant settings hash <code>{current.assistant_snapshot_hash.slice(0, 12)}</code>
      </p>
      {rates.length > 0 && (
        <table className="test-rates">
          <caption>Pass rate per test across its {current.attempts} attempt(s)</caption>
          <thead>
            <tr>
              <th scope="col">Test</th>
              <th scope="col">Passed</th>
              <th scope="col">Pass rate</th>
            </tr>
          </thead>
          <tbody>
            {rates.map((row) => (
              <tr key={row.testId} data-rate-test={row.testId}>
                <td>{nameOf(row.testId)}</td>
                <td>
                  {row.passed} of {row.finished}
                </td>
                <td>{percent(row.passed / row.finished)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="test-results">
        {current.results.map((result) => (
          <ResultDetail key={`${result.test_id}-${result.attempt}`} result={result} name={nameOf(result.test_id)} />
        ))}
      </div>
      {!finished && <Loading what="the attempts still running" />}
    </section>
  );
}
