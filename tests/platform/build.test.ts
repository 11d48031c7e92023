/**
 * @ci-once the build script's messages are the same whatever Node runs the tests
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * scripts/build.mjs, on a project of one file: a build says that it builds and how long it
 * took (a first `npm start` is otherwise silent for the whole build), a build with nothing
 * changed says nothing, and stdout stays empty (it is the CLI's JSON).
 */
const root = path.resolve(__dirname, '../..');
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'vozgate-build-'));
  await mkdir(path.join(dir, 'scripts'));
  await mkdir(path.join(dir, 'src'));
  await copyFile(path.join(root, 'scripts/build.mjs'), path.join(dir, 'scripts/build.mjs'));
  await symlink(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
  await writeFile(path.join(dir, 'tsconfig.build.json'), JSON.stringify({ compilerOptions: { outDir: 'dist', module: 'commonjs', target: 'ES2022' }, include: ['src'] }));
  await writeFile(path.join(dir, 'src/main.ts'), 'export const answer: number = 42;\n');
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const build = () =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(process.execPath, [path.join(dir, 'scripts/build.mjs')], (error, stdout, stderr) => resolve({ code: error ? 1 : 0, stdout, stderr })),
  );

it('says that it builds and how long it took, and nothing when nothing changed', async () => {
  const first = await build();
  expect(first).toEqual({ code: 0, stdout: '', stderr: expect.stringMatching(/^vozgate: building \(first start or sources changed\)\.\.\.\nvozgate: built in \d+\.\d s\n$/) });
  expect(await build()).toEqual({ code: 0, stdout: '', stderr: '' });
  await writeFile(path.join(dir, 'src/main.ts'), 'export const answer: number = 43;\n');
  expect((await build()).stderr).toContain('vozgate: building');
});
