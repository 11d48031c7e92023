import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';

/**
 * The tests' own house (README, "Tests"): `tests/<area>/<aspect>.test.ts`, one separator in an
 * aspect (`-`), so a reader and CI's ignore patterns find a file by one scheme; and every test
 * or helper file the README names is there under that name.
 */
const root = path.resolve(__dirname, '../..');
const tracked = execFileSync('git', ['ls-files', 'tests'], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);

it('names every test file tests/<area>/<aspect>.test.ts, the aspect in lower case with dashes', () => {
  const tests = tracked.filter((file) => file.endsWith('.test.ts'));
  expect(tests.length).toBeGreaterThan(30);
  expect(tests.filter((file) => !/^tests\/[a-z]+\/[a-z0-9]+(-[a-z0-9]+)*\.test\.ts$/.test(file))).toEqual([]);
});

it('keeps what test files share in tests/helpers/ (no helper beside the tests)', () => {
  const shared = tracked.filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'));
  expect(shared.filter((file) => !file.startsWith('tests/helpers/'))).toEqual([]);
});

it('names in the README only test files that exist', () => {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const named = [...readme.matchAll(/`(tests\/[\w./-]+\.(?:ts|mjs|cjs))`/g)].map((match) => match[1]);
  expect(named.length).toBeGreaterThan(10);
  expect(named.filter((file) => !existsSync(path.join(root, file)))).toEqual([]);
});
