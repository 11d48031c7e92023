import { startTestApp, type TestApp } from '../helpers/app';
import { dialerKit, sleep, until } from '../helpers/dialer';

/**
 * The dialer holds its next dials while a process that takes the calls' media reports overload
 * (admission control: table media_loads, written beside the heartbeat), and resumes when the
 * report clears or goes stale (past the heartbeat's staleness: 3 x 200 ms here), against the
 * real database and job queue. The reports are written here as a media process writes them.
 */
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ maxParallelCalls: 10, dialerTimeScale: 600 }, { workers: true });
});
afterAll(() => app?.close());

const { phone, setup, addLead, setStatus, leadsOf, callsOf } = dialerKit(() => app);

/** A media process's report, kept fresh as its heartbeat keeps it, until stopped. */
function mediaProcess(id: string, overloaded: boolean) {
  let state = overloaded;
  let running = true;
  const write = () =>
    app.sql(
      `insert into media_loads (process_id, overloaded, loop_delay_ms, vad_lag_ms, reported_at) values ($1, $2, 250, 0, now())
       on conflict (process_id) do update set overloaded = excluded.overloaded, reported_at = now()`,
      [id, state],
    );
  const loop = (async () => {
    while (running) {
      await write();
      await sleep(100);
    }
  })();
  return {
    set: async (value: boolean) => {
      state = value;
      await write();
    },
    /** Dies: its report stays, and goes stale. */
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

afterEach(() => app.sql('delete from media_loads'));

it('holds the dials while a fresh report says overloaded, and dials once it clears', async () => {
  const media = mediaProcess('media-a', true);
  try {
    const s = await setup();
    await addLead(s, phone('human'));
    expect((await setStatus(s, 'start')).body.data.status).toBe('running');
    // The dialer ran (its job is taken and put back for later), and placed nothing.
    await until('a held run', () => app.sql(`select run_at from graphile_worker.jobs where key = $1 and run_at > now()`, [`dialer:${s.campaign}`]), (rows) => rows.length === 1);
    await sleep(1500);
    expect(await callsOf(s)).toEqual([]);
    expect((await leadsOf(s))[0]).toMatchObject({ status: 'created', attempts: 0 });

    await media.set(false);
    await until('a call placed', () => callsOf(s), (calls) => calls.length === 1, 10_000);
  } finally {
    await media.stop();
  }
}, 30_000);

it('a report gone stale (its process died overloaded) holds nothing', async () => {
  const media = mediaProcess('media-b', true);
  const s = await setup();
  await addLead(s, phone('human'));
  await setStatus(s, 'start');
  await sleep(1000);
  expect(await callsOf(s)).toEqual([]);
  await media.stop();
  // Past 600 ms without a beat the report is not believed: the next run dials.
  await until('a call placed', () => callsOf(s), (calls) => calls.length === 1, 10_000);
  expect(await app.sql('select overloaded from media_loads where process_id = $1', ['media-b'])).toEqual([{ overloaded: true }]);
}, 30_000);
