import { useCallback, useEffect, useRef, useState } from 'react';
import type { TypedDocumentString } from '../gql/graphql';
import { ApiError, request, subscribe } from './client';

export interface QueryState<T> {
  data: T | undefined;
  error: ApiError | null;
  loading: boolean;
  /** Asks again (after a mutation, or when a subscription says the data moved). */
  refetch(): Promise<void>;
  /** Changes the data in place (a subscription's event applied to what is shown). */
  update(change: (data: T) => T): void;
}

/** A query, run again when its variables change; the last answer stays shown while the next loads. */
export function useQuery<TResult, TVariables>(document: TypedDocumentString<TResult, TVariables>, variables?: TVariables, options: { skip?: boolean } = {}): QueryState<TResult> {
  const [data, setData] = useState<TResult | undefined>(undefined);
  const [error, setError] = useState<ApiError | null>(null);
  const [loading, setLoading] = useState(!options.skip);
  const key = JSON.stringify(variables ?? {});
  const latest = useRef(0);
  const run = useCallback(async () => {
    const ticket = ++latest.current;
    setLoading(true);
    try {
      const answer = await request(document, variables);
      // An answer to an older request (the filters changed meanwhile) is not shown.
      if (ticket !== latest.current) return;
      setData(answer);
      setError(null);
    } catch (caught) {
      if (ticket === latest.current) setError(caught instanceof ApiError ? caught : new ApiError([], String(caught)));
    } finally {
      if (ticket === latest.current) setLoading(false);
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [document, key]);
  useEffect(() => {
    if (!options.skip) void run();
  }, [run, options.skip]);
  const update = useCallback((change: (data: TResult) => TResult) => setData((current) => (current === undefined ? current : change(current))), []);
  return { data, error, loading, refetch: run, update };
}

/**
 * A subscription for as long as the component shows: `onData` gets each event. The callback
 * may change between renders without restarting the stream.
 */
export function useSubscription<TResult, TVariables>(
  document: TypedDocumentString<TResult, TVariables>,
  variables: TVariables,
  onData: (data: TResult) => void,
  options: { skip?: boolean } = {},
): ApiError | null {
  const [error, setError] = useState<ApiError | null>(null);
  const handler = useRef(onData);
  handler.current = onData;
  const key = JSON.stringify(variables);
  useEffect(() => {
    if (options.skip) return;
    setError(null);
    return subscribe(document, variables, (data) => handler.current(data), setError);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [document, key, options.skip]);
  return error;
}

export interface MutationState<TResult, TVariables> {
  run(variables: TVariables): Promise<TResult | null>;
  running: boolean;
  error: ApiError | null;
  reset(): void;
}

/** A mutation: `run` answers the result, or null after a refusal, which `error` then holds. */
export function useMutation<TResult, TVariables>(document: TypedDocumentString<TResult, TVariables>): MutationState<TResult, TVariables> {
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const run = useCallback(
    async (variables: TVariables) => {
      setRunning(true);
      setError(null);
      try {
        return await request(document, variables);
      } catch (caught) {
        setError(caught instanceof ApiError ? caught : new ApiError([], String(caught)));
        return null;
      } finally {
        setRunning(false);
      }
    },
    [document],
  );
  return { run, running, error, reset: () => setError(null) };
}

/**
 * Many events, few renders: changes are gathered and applied at most once per `ms`, so that
 * a campaign of thousands of leads moving at once keeps the page responsive.
 */
export function useBatched<T>(apply: (items: T[]) => void, ms = 250): (item: T) => void {
  const queue = useRef<T[]>([]);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const applyRef = useRef(apply);
  applyRef.current = apply;
  useEffect(() => () => {
    if (timer.current) clearTimeout(timer.current);
  }, []);
  return useCallback(
    (item: T) => {
      queue.current.push(item);
      timer.current ??= setTimeout(() => {
        timer.current = null;
        const items = queue.current;
        queue.current = [];
        applyRef.current(items);
      }, ms);
    },
    [ms],
  );
}
