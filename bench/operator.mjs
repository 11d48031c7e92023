#!/usr/bin/env node
// The operator's first hour, measured: how long `npm start` takes to be ready (first start on
// an empty DATA_DIR, then a second), and how long `npm run -s cli -- <command>` takes beside
// the running server (the first after a source change, which rebuilds, then a second).
// `node bench/operator.mjs`: prints a markdown table; nothing here is a pass/fail test.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = mkdtempSync(path.join(tmpdir(), 'vozgate-operator-'));
const env = { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1' };
delete env.DATABASE_URL;

function start() {
  const began = performance.now();
  const child = spawn('npm', ['start', '--silent'], { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      if (output.includes('vozgate is up') && output.includes('workers')) resolve({ child, ms: performance.now() - began });
    });
    child.on('exit', (code) => reject(new Error(`npm start exited with ${code}`)));
  });
}

function stop(child) {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.on('exit', resolve);
    process.kill(-child.pid, 'SIGINT');
  });
}

function cli(...args) {
  const began = performance.now();
  const result = spawnSync('npm', ['run', '-s', 'cli', '--', ...args], { cwd: root, env, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`cli ${args.join(' ')}: ${result.stderr}`);
  return performance.now() - began;
}

const rows = [];
try {
  const touch = path.join(root, 'src', 'cli', 'index.ts');
  utimesSync(touch, new Date(), new Date()); // a source changed: the next build is a real one
  const first = await start();
  rows.push(['npm start after a source change, on an empty DATA_DIR (rebuild of dist/, initdb, migrations, seed)', first.ms]);
  await stop(first.child);
  const second = await start();
  rows.push(['npm start, second (nothing changed)', second.ms]);
  utimesSync(touch, new Date(), new Date());
  rows.push(['npm run -s cli -- account:show, first after a source change (rebuilds)', cli('account:show', '--account', '1')]);
  rows.push(['npm run -s cli -- account:show, second (nothing changed)', cli('account:show', '--account', '1')]);
  rows.push(['npm run -s cli -- token:list, third', cli('token:list', '--account', '1')]);
  await stop(second.child);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
console.log('| step | seconds |\n|---|---:|');
for (const [step, ms] of rows) console.log(`| ${step} | ${(ms / 1000).toFixed(2)} |`);
