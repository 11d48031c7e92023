import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { collectGarbage, rssMb, start } from '../../bench/process';

/**
 * The benchmark reads a server's memory after collecting its garbage through the inspector
 * (`collectGarbage`), so that each pass is read in the same state. A process holding about
 * 100 MB of garbage and a little under 10 MB of live objects must be read as the latter.
 */
const dir = mkdtempSync(path.join(tmpdir(), 'vozgate-memory-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('collects a server’s garbage through its inspector and answers the live heap', async () => {
  const script = path.join(dir, 'server.js');
  writeFileSync(
    script,
    `const kept = Array.from({ length: 100000 }, (_, i) => ({ i, text: 'kept ' + i }));
     let garbage = Array.from({ length: 1000000 }, (_, i) => ({ i, text: 'garbage ' + i }));
     garbage = null;
     console.log('ready 1 with', Math.round(process.memoryUsage().heapUsed / 1048576), 'MB used');
     setInterval(() => kept.length, 1000);`,
  );
  const server = await start(['--inspect=127.0.0.1:0', script], {}, /ready (\d+) with/);
  try {
    const used = Number(/with (\d+) MB used/.exec(readFileSync(server.logFile, 'utf8'))![1]);
    expect(used).toBeGreaterThan(60);
    const { live_mb } = await collectGarbage(server);
    expect(live_mb).toBeLessThan(30);
    expect(live_mb).toBeGreaterThan(3);
    expect(rssMb(server.child.pid!)).toBeGreaterThan(live_mb);
  } finally {
    server.child.kill();
  }
});

it('says so when the server has no inspector', async () => {
  const script = path.join(dir, 'plain.js');
  writeFileSync(script, `console.log('ready 1'); setInterval(() => {}, 1000);`);
  const server = await start([script], {}, /ready (\d+)/);
  try {
    await expect(collectGarbage(server)).rejects.toThrow(/--inspect=127.0.0.1:0/);
  } finally {
    server.child.kill();
  }
});
