import { UnauthenticatedError } from '../../errors';
import type { GraphQLContext } from '../../graphql/context';
import type { BusEvent } from '../events/event.bus';
import { readInSnapshot, startingWith } from '../events/event.initial';
import { LEAD_IMPORT_EVENT, getImport } from './lead.import';

const FINAL = new Set(['done', 'failed']);

/**
 * The events of one import, for its subscription: first its current state (an unknown import
 * is the query's 404), then one event per committed batch, and the stream ends after the
 * final state. Events carry the import's id and status; the subscription reads the import.
 */
export async function importEvents(ctx: GraphQLContext, id: number): Promise<AsyncIterableIterator<BusEvent>> {
  if (ctx.accountId === null || !ctx.events) throw new UnauthenticatedError();
  const accountId = ctx.accountId;
  // The progress event is not one of the webhook catalogue's types (event.outbox.ts): it lives only in this stream.
  const accept = (event: BusEvent) => (event.type as string) === LEAD_IMPORT_EVENT && event.data.id === id;
  const stream = await startingWith(ctx.events.iterate(accountId, accept), async () => {
    const { state, snapshot } = await readInSnapshot(ctx.root, (em) => getImport({ em, accountId }, id));
    const event = { id: 'current', account_id: accountId, type: LEAD_IMPORT_EVENT, data: { id, status: state.status }, xid: '' } as unknown as BusEvent;
    return { state: event, snapshot };
  });
  let ended = false;
  const events: AsyncIterableIterator<BusEvent> = {
    async next() {
      if (ended) {
        await stream.return?.();
        return { value: undefined, done: true };
      }
      const next = await stream.next();
      if (!next.done && FINAL.has(next.value.data.status)) ended = true;
      return next;
    },
    return: async () => (await stream.return?.()) ?? { value: undefined, done: true },
    [Symbol.asyncIterator]: () => events,
  };
  return events;
}
