import { readFileSync } from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';

/**
 * The voice engine's house (design.md, "The pipeline engine, round 2"): no file under
 * src/voice/ over 400 lines, so each part keeps one job and the next act is a file of its own.
 */
const root = path.resolve(__dirname, '../..');
const MAX_LINES = 400;

it(`keeps every file under src/voice/ at ${MAX_LINES} lines or fewer`, () => {
  const files = execFileSync('git', ['ls-files', 'src/voice'], { cwd: root, encoding: 'utf8' }).split('\n').filter((file) => file.endsWith('.ts'));
  expect(files.length).toBeGreaterThan(50);
  const lines = (file: string) => readFileSync(path.join(root, file), 'utf8').split('\n').length - 1;
  expect(files.filter((file) => lines(file) > MAX_LINES).map((file) => `${file}: ${lines(file)} lines`)).toEqual([]);
});
