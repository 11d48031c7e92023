/**
 * `npm run bench -- --profile [--only TEXT]`: where a scenario's time goes in vozgate. Each
 * scenario runs against a vozgate process of its own started with `--cpu-prof`; the samples
 * taken during the measured window (not the start-up, not the warm-up) are summed by package
 * and by function, and written as markdown to bench/results/profiles/.
 */

/** The parts of a V8 CPU profile (`.cpuprofile`) read here. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  /** Microseconds on the monotonic clock that `process.hrtime` reads too. */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  /** Sampled milliseconds in the window, idle excluded. */
  busyMs: number;
  idleMs: number;
  byPackage: { name: string; ms: number }[];
  byFunction: { name: string; ms: number }[];
}

/**
 * Self time by package and by function of the samples within [fromUs, toUs]. A package is the
 * node_modules package a function comes from; vozgate's own code is named by its compiled file, Node's
 * by its module, and V8's entries (the garbage collector, native writes) by themselves.
 */
export function summariseProfile(profile: CpuProfile, fromUs: number, toUs: number): ProfileSummary {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<number, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (at < fromUs || at > toUs) return;
    // A sample's time is the gap to the next one.
    const next = profile.timeDeltas[i + 1] ?? 0;
    self.set(id, (self.get(id) ?? 0) + next);
  });
  const packages = new Map<string, number>();
  const functions = new Map<string, number>();
  let idle = 0;
  for (const [id, us] of self) {
    const { functionName, url, lineNumber } = nodes.get(id)!.callFrame;
    if (functionName === '(idle)') {
      idle += us;
      continue;
    }
    const where = place(url);
    packages.set(where ?? functionName, (packages.get(where ?? functionName) ?? 0) + us);
    const name = `${functionName || '(anonymous)'}${where ? ` ${where}:${lineNumber + 1}` : ''}`;
    functions.set(name, (functions.get(name) ?? 0) + us);
  }
  const ranked = (map: Map<string, number>) =>
    [...map].sort((a, b) => b[1] - a[1]).map(([name, us]) => ({ name, ms: Math.round(us / 100) / 10 }));
  const busy = [...packages.values()].reduce((sum, us) => sum + us, 0);
  return { busyMs: Math.round(busy / 1000), idleMs: Math.round(idle / 1000), byPackage: ranked(packages), byFunction: ranked(functions) };
}

/** A function's package (`graphql`, `@mikro-orm/core`), vozgate's compiled file (`dist/src/...`), or Node's module (`node:...`). */
function place(url: string): string | null {
  if (!url) return null;
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1];
  const own = /\/(dist\/(?:src|bench)\/.+)$/.exec(url);
  if (own) return own[1]; // the compiled file, whose line the profile names
  return url.replace(/^file:\/\//, '');
}

/** The summary as markdown: CPU per request, then the packages and the functions that hold 1% or more of it. */
export function profileMarkdown(title: string, summary: ProfileSummary, requests: number, top = 25): string {
  const share = (ms: number) => `${((ms / summary.busyMs) * 100).toFixed(1)}%`;
  const perRequest = requests ? Math.round((summary.busyMs / requests) * 100) / 100 : 0;
  return [
    `# ${title}`,
    '',
    `${requests} requests in the measured window: ${summary.busyMs} ms of CPU in the process (${perRequest} ms a request), ${summary.idleMs} ms idle.`,
    '',
    '| package | self ms | share |',
    '|---|---:|---:|',
    ...summary.byPackage.filter((p) => p.ms >= summary.busyMs / 100).map((p) => `| ${p.name} | ${p.ms} | ${share(p.ms)} |`),
    '',
    '| function | self ms | share |',
    '|---|---:|---:|',
    ...summary.byFunction.slice(0, top).map((f) => `| ${f.name.replace(/\|/g, '\\|')} | ${f.ms} | ${share(f.ms)} |`),
    '',
  ].join('\n');
}
