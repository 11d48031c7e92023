import { profileMarkdown, summariseProfile, type CpuProfile } from '../../bench/profile';

/** The benchmark's profile summary (`npm run bench -- --profile`) on a profile small enough to add up by hand. */
const frame = (functionName: string, url = '') => ({ functionName, url, lineNumber: 9 });
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)'), children: [2, 3, 4, 5, 6] },
    { id: 2, callFrame: frame('(idle)') },
    { id: 3, callFrame: frame('executeField', 'file:///srv/vozgate/node_modules/graphql/execution/execute.js') },
    { id: 4, callFrame: frame('listLeads', 'file:///srv/vozgate/dist/src/modules/leads/lead.service.js') },
    { id: 5, callFrame: frame('(garbage collector)') },
    { id: 6, callFrame: frame('parseRow', 'file:///srv/vozgate/node_modules/@mikro-orm/core/x.js') },
  ],
  startTime: 1_000_000,
  // Samples at 1,001,000 (before the window), then every 1,000 µs from 1,010,000.
  samples: [3, 3, 4, 5, 2, 6, 3, 4],
  timeDeltas: [1_000, 9_000, 1_000, 1_000, 1_000, 1_000, 1_000, 1_000],
};

it('adds up the self time of the samples in the window, by package and by function', () => {
  // The window holds the samples at 1,010,000 .. 1,014,000: a sample's time is the gap to the next one.
  expect(summariseProfile(profile, 1_010_000, 1_014_000)).toEqual({
    busyMs: 4,
    idleMs: 1,
    byPackage: [
      { name: 'graphql', ms: 1 },
      { name: 'dist/src/modules/leads/lead.service.js', ms: 1 },
      { name: '(garbage collector)', ms: 1 },
      { name: '@mikro-orm/core', ms: 1 },
    ],
    byFunction: [
      { name: 'executeField graphql:10', ms: 1 },
      { name: 'listLeads dist/src/modules/leads/lead.service.js:10', ms: 1 },
      { name: '(garbage collector)', ms: 1 },
      { name: 'parseRow @mikro-orm/core:10', ms: 1 },
    ],
  });
  // The whole profile: the first sample counts too (9 ms to the next one), and so does the one at 1,015,000.
  expect(summariseProfile(profile, 0, Infinity).byPackage[0]).toEqual({ name: 'graphql', ms: 11 });
});

it('writes the CPU per request and the shares', () => {
  const markdown = profileMarkdown('Profile: list leads', summariseProfile(profile, 1_010_000, 1_014_000), 2);
  expect(markdown).toContain('2 requests in the measured window: 4 ms of CPU in the process (2 ms a request), 1 ms idle.');
  expect(markdown).toContain('| graphql | 1 | 25.0% |');
  expect(markdown).toContain('| executeField graphql:10 | 1 | 25.0% |');
});
