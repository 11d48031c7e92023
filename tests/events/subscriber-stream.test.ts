import { subscriberStream } from '../../src/modules/events/event.bus';

/**
 * What every subscription reads from (event.bus.ts subscriberStream: the account's events, a
 * conversation's pieces): values in order, those not read yet queued up to 1,000; one more and
 * the stream ends, its listener removed, so that a slow subscriber holds no more than that.
 */
function source() {
  const state = { push: null as ((value: number) => void) | null, stopped: 0, behind: 0 };
  const stream = subscriberStream<number>(
    (push) => {
      state.push = push;
      return () => state.stopped++;
    },
    () => state.behind++,
  );
  return { state, stream };
}

it('gives each value in order, read as it comes or from the queue', async () => {
  const { state, stream } = source();
  const first = stream.next();
  state.push!(1);
  state.push!(2);
  state.push!(3);
  expect(await first).toEqual({ value: 1, done: false });
  expect(await stream.next()).toEqual({ value: 2, done: false });
  expect(await stream.next()).toEqual({ value: 3, done: false });
  await stream.return!();
  expect(state.stopped).toBe(1);
  expect(await stream.next()).toEqual({ value: undefined, done: true });
});

it('ends the stream of a subscriber 1,000 values behind: what was queued is still read, then the end; the listener is removed once', async () => {
  const { state, stream } = source();
  for (let value = 0; value <= 1000; value++) state.push!(value);
  expect(state.behind).toBe(1);
  expect(state.stopped).toBe(1);
  state.push!(5000); // after the end: dropped
  const read: number[] = [];
  for await (const value of stream) read.push(value);
  expect(read).toEqual(Array.from({ length: 1000 }, (_, value) => value));
  expect(state.stopped).toBe(1);
});
