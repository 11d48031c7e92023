import type { TestRun } from '../modules/assistant-tests/test.types';

/** XML's five escapes, and the characters XML 1.0 cannot hold at all left out. */
function xml(text: string): string {
  return text
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/**
 * A finished run as JUnit XML (the schema CI servers read, e.g. GitHub's and GitLab's test
 * reports): one testsuite for the run, one testcase per attempt; a failed attempt is a
 * <failure> naming its unmet criteria, an attempt that could not reach a verdict an <error>;
 * the transcript goes in <system-out>.
 */
export function junitXml(run: TestRun, names: Record<number, string>): string {
  const count = (status: string) => run.results.filter((result) => result.status === status).length;
  const seconds = run.started_at && run.finished_at ? (Date.parse(run.finished_at) - Date.parse(run.started_at)) / 1000 : 0;
  const attrs = `tests="${run.results.length}" failures="${count('failed')}" errors="${count('error')}" time="${seconds.toFixed(3)}"`;
  const cases = run.results.map((result) => {
    const name = names[result.test_id] ?? `test ${result.test_id}`;
    const unmet = result.criteria.filter((verdict) => !verdict.passed).map((verdict) => `${verdict.criterion}: ${verdict.reason}`);
    const outcome =
      result.status === 'failed'
        ? `\n      <failure message="${xml(unmet[0] ?? 'failed')}" type="failed">${xml(unmet.join('\n'))}</failure>`
        : result.status === 'error'
          ? `\n      <error message="${xml(result.error ?? 'error')}" type="error"/>`
          : '';
    const transcript = result.transcript.map((message) => `${message.role}: ${message.content}`).join('\n');
    return (
      `    <testcase name="${xml(`${name} (attempt ${result.attempt})`)}" classname="${xml(`assistant.${run.assistant_id}.test.${result.test_id}`)}" time="0">` +
      `${outcome}\n      <system-out>${xml(transcript)}</system-out>\n    </testcase>`
    );
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="vozgate assistant ${run.assistant_id}" ${attrs}>`,
    `  <testsuite name="assistant ${run.assistant_id}, run ${run.id}" ${attrs} timestamp="${xml(run.started_at ?? run.created_at)}">`,
    `    <properties><property name="assistant_snapshot_hash" value="${xml(run.assistant_snapshot_hash)}"/><property name="pass_rate" value="${run.pass_rate ?? ''}"/></properties>`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
