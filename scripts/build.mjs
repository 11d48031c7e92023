#!/usr/bin/env node
// Builds dist/ with tsc, but only when a source, a tsconfig or the lockfile changed since the
// last build (a fingerprint of their paths, sizes and times is kept in dist/.build-stamp).
// So `npm start` and `npm run cli` start at once when nothing changed. `--force` rebuilds.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const INPUTS = ['src', 'scripts', 'bench', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];
const SKIP = new Set(['.cache', 'node_modules', 'results']);
const stampFile = path.join(root, 'dist', '.build-stamp');

function* files(entry) {
  const stat = statSync(entry, { throwIfNoEntry: false });
  if (!stat) return;
  if (!stat.isDirectory()) {
    yield `${path.relative(root, entry)}:${stat.size}:${stat.mtimeMs}`;
    return;
  }
  for (const name of readdirSync(entry).sort()) if (!SKIP.has(name)) yield* files(path.join(entry, name));
}

const fingerprint = createHash('sha256');
for (const input of INPUTS) for (const line of files(path.join(root, input))) fingerprint.update(`${line}\n`);
const current = fingerprint.digest('hex');

if (!process.argv.includes('--force') && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === current) process.exit(0);
// On stderr: stdout is the CLI's JSON. Without these lines a first `npm start` is silent for
// the whole build (about 40 s on a small machine) and looks stuck.
const started = Date.now();
process.stderr.write('vozgate: building (first start or sources changed)...\n');
rmSync(path.join(root, 'dist'), { recursive: true, force: true });
try {
  execFileSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
} catch {
  process.stderr.write('vozgate: the build failed (the TypeScript errors are above)\n');
  process.exit(1);
}
writeFileSync(stampFile, current);
process.stderr.write(`vozgate: built in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
