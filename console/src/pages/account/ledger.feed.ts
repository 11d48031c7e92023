import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError, request } from '../../api/client';
import type { ConsoleLedgerSliceQuery } from '../../gql/graphql';
import { LedgerSliceDocument } from './account.operations';

type LedgerSlice = ConsoleLedgerSliceQuery['me']['ledgerFeed'];
export type LedgerEntry = LedgerSlice['data'][number];

/** Slices of the API's default size: a first screen, then "Show older" a slice at a time. */
const PER_PAGE = 15;
/** Newer entries read at most this many slices deep; past it, the list starts again from the newest. */
const MAX_CATCH_UP = 10;

export interface LedgerFeedState {
  entries: LedgerEntry[];
  /** Whether the ledger has entries older than those shown. */
  hasOlder: boolean;
  loaded: boolean;
  busy: boolean;
  error: ApiError | null;
  /** The next older slice, after those shown. */
  showOlder(): Promise<void>;
  /** Entries added since (a call ended): read from the newest down to the first one already shown. */
  refresh(): Promise<void>;
}

/** The account's whole ledger, newest first, through me.ledgerFeed's slices. */
export function useLedgerFeed(): LedgerFeedState {
  const [entries, setEntries] = useState<LedgerEntry[]>([]);
  const [older, setOlder] = useState<string | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const shown = useRef<LedgerEntry[]>([]);
  shown.current = entries;

  const guarded = useCallback(async (work: () => Promise<void>) => {
    setBusy(true);
    try {
      await work();
      setError(null);
    } catch (caught) {
      setError(caught instanceof ApiError ? caught : new ApiError([], String(caught)));
    } finally {
      setBusy(false);
    }
  }, []);

  const refresh = useCallback(
    () =>
      guarded(async () => {
        const known = new Set(shown.current.map((entry) => entry.id));
        const fresh: LedgerEntry[] = [];
        let after: string | null = null;
        for (let slice = 0; slice < MAX_CATCH_UP; slice++) {
          const answer: LedgerSlice = (await request(LedgerSliceDocument, { after, per_page: PER_PAGE })).me.ledgerFeed;
          const overlap = answer.data.findIndex((entry) => known.has(entry.id));
          fresh.push(...(overlap < 0 ? answer.data : answer.data.slice(0, overlap)));
          // Nothing shown yet (the first load), or the newest reached what is shown: done.
          if (known.size === 0 || overlap >= 0 || answer.next_after === null) {
            if (known.size === 0 || overlap < 0) {
              setEntries(fresh);
              setOlder(answer.next_after);
            } else {
              setEntries((current) => [...fresh.filter(absentFrom(current)), ...current]);
            }
            setLoaded(true);
            return;
          }
          after = answer.next_after;
        }
        // Too many new entries to join up with those shown: start again from the newest.
        setEntries(fresh);
        setOlder(after);
      }),
    [guarded],
  );

  const showOlder = useCallback(
    () =>
      guarded(async () => {
        if (older === null) return;
        const answer = (await request(LedgerSliceDocument, { after: older, per_page: PER_PAGE })).me.ledgerFeed;
        setEntries((current) => [...current, ...answer.data.filter(absentFrom(current))]);
        setOlder(answer.next_after);
      }),
    [guarded, older],
  );

  useEffect(() => {
    void refresh();
  }, [refresh]);

  return { entries, hasOlder: older !== null, loaded, busy, error, showOlder, refresh };
}

/** Two reads that overlap (a refresh while another is under way) show each entry once. */
function absentFrom(current: LedgerEntry[]): (entry: LedgerEntry) => boolean {
  const ids = new Set(current.map((entry) => entry.id));
  return (entry) => !ids.has(entry.id);
}
