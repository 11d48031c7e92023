import type { Logger } from '../../log';
import { subscriberStream, type EventBus, type TestRunPiece } from '../events/event.bus';

/** The changes of one run of the account (each result as it lands, each status change), as a subscription's source. */
export function testRunPieces(bus: EventBus, accountId: number, runId: number, logger?: Logger): AsyncIterableIterator<TestRunPiece> {
  return subscriberStream<TestRunPiece>(
    (push) =>
      bus.listenTestRuns(accountId, (piece) => {
        if (piece.r === runId) push(piece);
      }),
    () => logger?.warn('tests: a subscriber fell too far behind; its stream is ended', { account_id: accountId }),
  );
}
