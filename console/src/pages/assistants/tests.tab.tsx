import { useCallback, useMemo, useState } from 'react';
import { useMutation, useQuery } from '../../api/hooks';
import { formatTime } from '../../ui/format';
import { Empty, ErrorNotice, Loading } from '../../ui/notice';
import { Pager } from '../../ui/pager';
import { TestForm, TYPE_LABELS, type TestRecord, type TestType } from './tests.form';
import { AssistantTestsDocument, DeleteAssistantTestDocument, StartTestRunDocument, TestRunsDocument } from './tests.operations';
import { percent, TestRunView, Verdict } from './tests.run';
import './tests.css';

/** A line that says what a test checks, for the list. */
function summary(test: TestRecord): string {
  const c = test.config as Record<string, any>;
  if (test.type === 'tool_call') return c.expect?.tool ? `expects ${c.expect.tool}` : 'expects no tool call';
  const criteria = Array.isArray(c.success_criteria) ? c.success_criteria.length : 0;
  if (test.type === 'simulation') return `${c.channel ?? 'chat'}, up to ${c.max_turns ?? 12} turns, ${criteria} criteria`;
  return `${criteria} criteria`;
}

/**
 * The assistant's "Tests" tab: its tests (written, edited, deleted here), runs of all or some
 * of them with attempts, the run followed live, and the past runs.
 */
export default function TestsTab({ assistantId }: { assistantId: number }) {
  const tests = useQuery(AssistantTestsDocument, { assistant_id: assistantId });
  const [runsPage, setRunsPage] = useState(1);
  const runs = useQuery(TestRunsDocument, { assistant_id: assistantId, page: runsPage });
  const remove = useMutation(DeleteAssistantTestDocument);
  const start = useMutation(StartTestRunDocument);
  const [editing, setEditing] = useState<TestRecord | 'new' | null>(null);
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const [attempts, setAttempts] = useState('1');
  const [shownRun, setShownRun] = useState<number | null>(null);
  const list = tests.data?.assistantTests ?? [];
  const names = useMemo(() => new Map(list.map((test) => [test.id, test.name])), [list]);
  const toolNames = tests.data?.assistant.tools.map((tool) => tool.name) ?? [];
  const refetchRuns = runs.refetch;
  const runEnded = useCallback(() => void refetchRuns(), [refetchRuns]);

  async function run(testIds: number[] | null) {
    const started = await start.run({ assistant_id: assistantId, input: { attempts: Number(attempts), ...(testIds ? { test_ids: testIds } : {}) } });
    if (!started) return;
    setShownRun(started.startTestRun.id);
    setRunsPage(1);
    void runs.refetch();
  }

  async function del(test: TestRecord) {
    if (!window.confirm(`Delete the test “${test.name}”? Past runs keep its results.`)) return;
    if (await remove.run({ id: test.id })) {
      selected.delete(test.id);
      setSelected(new Set(selected));
      void tests.refetch();
    }
  }

  const toggle = (id: number) => {
    const next = new Set(selected);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setSelected(next);
  };
  const attemptErrors = start.error?.fields.attempts ?? start.error?.fields['input.attempts'] ?? [];
  const otherStartError = start.error && !attemptErrors.length ? start.error : null;

  return (
    <div className="tests-tab">
      <section className="panel" aria-labelledby="tests-title">
        <div className="tests-head">
          <h2 id="tests-title">Tests</h2>
          {editing === null && (
            <button type="button" onClick={() => setEditing('new')}>
              New test
            </button>
          )}
        </div>
        <p className="tests-intro">Each test pins what the assistant must do; run them again after a change to its prompt, model, voice or tools.</p>
        <ErrorNotice error={tests.error ?? remove.error} />
        {editing !== null && (
          <TestForm
            key={editing === 'new' ? 'new' : editing.id}
            assistantId={assistantId}
            test={editing === 'new' ? null : editing}
            toolNames={toolNames}
            onDone={(saved) => {
              setEditing(null);
              if (saved) void tests.refetch();
            }}
          />
        )}
        {!tests.data && !tests.error && <Loading what="the tests" />}
        {tests.data && list.length === 0 && editing === null && <Empty>No tests yet: write the first with “New test”.</Empty>}
        {list.length > 0 && (
          <table className="tests-list">
            <thead>
              <tr>
                <th scope="col">
                  <span className="visually-hidden-test">Select</span>
                </th>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">Checks</th>
                <th scope="col">Updated</th>
                <th scope="col">
                  <span className="visually-hidden-test">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.map((test) => (
                <tr key={test.id} data-test={test.id}>
                  <td>
                    <input type="checkbox" id={`select-test-${test.id}`} checked={selected.has(test.id)} onChange={() => toggle(test.id)} aria-label={`Select ${test.name}`} />
                  </td>
                  <td>{test.name}</td>
                  <td>{TYPE_LABELS[test.type as TestType] ?? test.type}</td>
                  <td>{summary(test)}</td>
                  <td>{formatTime(test.updated_at)}</td>
                  <td className="tests-actions">
                    <button type="button" className="secondary outline small" onClick={() => setEditing(test)} aria-label={`Edit ${test.name}`}>
                      Edit
                    </button>
                    <button type="button" className="secondary outline small" onClick={() => void del(test)} aria-label={`Delete ${test.name}`}>
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {list.length > 0 && (
          <div className="tests-run-bar">
            <label htmlFor="test-attempts">
              Attempts per test (1 to 10)
              <input
                id="test-attempts"
                inputMode="numeric"
                value={attempts}
                onChange={(e) => setAttempts(e.target.value)}
                {...(attemptErrors.length ? { 'aria-invalid': true, 'aria-describedby': 'test-attempts-error' } : {})}
              />
              {attemptErrors.length > 0 && (
                <small id="test-attempts-error" className="test-field-error">
                  {attemptErrors.join(' ')}
                </small>
              )}
            </label>
            <button type="button" onClick={() => void run(null)} aria-busy={start.running ? 'true' : undefined}>
              Run all
            </button>
            <button type="button" className="secondary" disabled={selected.size === 0} onClick={() => void run([...selected])}>
              Run selected ({selected.size})
            </button>
          </div>
        )}
        <ErrorNotice error={otherStartError} />
      </section>

      {shownRun !== null && <TestRunView key={shownRun} runId={shownRun} names={names} onFinished={runEnded} />}

      <section className="panel" aria-labelledby="test-runs-title">
        <h2 id="test-runs-title">Past runs</h2>
        <ErrorNotice error={runs.error} />
        {runs.data && runs.data.testRuns.total === 0 && <Empty>No runs yet.</Empty>}
        {runs.data && runs.data.testRuns.data.length > 0 && (
          <table className="test-runs">
            <thead>
              <tr>
                <th scope="col">Run</th>
                <th scope="col">Status</th>
                <th scope="col">Pass rate</th>
                <th scope="col">Attempts</th>
                <th scope="col">Started</th>
                <th scope="col">Settings hash</th>
              </tr>
            </thead>
            <tbody>
              {runs.data.testRuns.data.map((past) => (
                <tr key={past.id} data-past-run={past.id} aria-current={past.id === shownRun ? 'true' : undefined}>
                  <td>
                    <button type="button" className="secondary outline small" onClick={() => setShownRun(past.id)}>
                      Show run {past.id}
                    </button>
                  </td>
                  <td>
                    <Verdict status={past.status} />
                  </td>
                  <td>{percent(past.pass_rate)}</td>
                  <td>
                    {past.attempts} each
                  </td>
                  <td>{formatTime(past.started_at ?? past.created_at)}</td>
                  <td>
                    <code>{past.assistant_snapshot_hash.slice(0, 12)}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <Pager page={runs.data?.testRuns} onPage={setRunsPage} label="Test runs" />
      </section>
    </div>
  );
}
