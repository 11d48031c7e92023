#!/usr/bin/env node
// Builds dist/ with tsc, but only when a source, a tsconfig or the lockfile changed since the
// last build (a fingerprint of their paths, sizes and times is kept in dist/.build-stamp).
// So `npm start` and `npm run cli` start at once when nothing changed. `--force` rebuilds.
// The console (console/, served at /console) is built the same way, on a fingerprint of its
// own, into dist/console/, which the TypeScript build leaves alone; CONSOLE=false skips it.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const INPUTS = ['src', 'scripts', 'bench', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];
const SKIP = new Set(['.cache', 'node_modules', 'results']);
const stampFile = path.join(root, 'dist', '.build-stamp');
const CONSOLE_INPUTS = ['console', 'package-lock.json'];
const consoleDir = path.join(root, 'dist', 'console');
const consoleStampFile = path.join(root, 'dist', '.console-stamp');
const force = process.argv.includes('--force');

function* files(entry) {
  const stat = statSync(entry, { throwIfNoEntry: false });
  if (!stat) return;
  if (!stat.isDirectory()) {
    yield `${path.relative(root, entry)}:${stat.size}:${stat.mtimeMs}`;
    return;
  }
  for (const name of readdirSync(entry).sort()) if (!SKIP.has(name)) yield* files(path.join(entry, name));
}

function fingerprintOf(inputs) {
  const fingerprint = createHash('sha256');
  for (const input of inputs) for (const line of files(path.join(root, input))) fingerprint.update(`${line}\n`);
  return fingerprint.digest('hex');
}

const upToDate = (stamp, current) => !force && existsSync(stamp) && readFileSync(stamp, 'utf8') === current;

const current = fingerprintOf(INPUTS);
if (!upToDate(stampFile, current)) buildServer();
const consoleWanted = !['0', 'false', 'no', 'off'].includes((process.env.CONSOLE ?? '').trim().toLowerCase());
if (consoleWanted && existsSync(path.join(root, 'console', 'vite.config.mts'))) {
  const consoleCurrent = fingerprintOf(CONSOLE_INPUTS);
  if (!upToDate(consoleStampFile, consoleCurrent) || !existsSync(path.join(consoleDir, 'index.html'))) buildConsole(consoleCurrent);
}

function buildServer() {
  // On stderr: stdout is the CLI's JSON. Without these lines a first `npm start` is silent for
  // the whole build (about 40 s on a small machine) and looks stuck.
  const started = Date.now();
  process.stderr.write('vozgate: building (first start or sources changed)...\n');
  for (const entry of existsSync(path.join(root, 'dist')) ? readdirSync(path.join(root, 'dist')) : []) {
    if (entry !== 'console' && entry !== '.console-stamp') rmSync(path.join(root, 'dist', entry), { recursive: true, force: true });
  }
  try {
    execFileSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  } catch {
    process.stderr.write('vozgate: the build failed (the TypeScript errors are above)\n');
    process.exit(1);
  }
  writeFileSync(stampFile, current);
  process.stderr.write(`vozgate: built in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

function buildConsole(fingerprint) {
  const started = Date.now();
  process.stderr.write('vozgate: building the console (console/ changed)...\n');
  try {
    // Vite writes dist/console/ afresh (emptyOutDir): console/vite.config.mts says where.
    execFileSync(process.execPath, [path.join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', path.join(root, 'console'), '--logLevel', 'warn'], { stdio: 'inherit' });
  } catch {
    process.stderr.write('vozgate: the console build failed (the errors are above)\n');
    process.exit(1);
  }
  writeFileSync(consoleStampFile, fingerprint);
  process.stderr.write(`vozgate: console built in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}
