/**
 * The latency histogram's fixed buckets. Percentiles cannot be added up, but counts can: each
 * measured answer (a turn's voice-to-voice `first_audio_ms`) is counted in one bucket of a
 * fixed set, per hour, campaign and assistant, and a period's p50/p95 is read from the summed
 * counts. The answer is the upper edge of the bucket that holds the nearest-rank value, so it
 * is never below the true value and at most one bucket width above it: 25 ms below 1 s,
 * 100 ms from 1 s to 3 s, 500 ms from 3 s to 10 s; past 10 s it is reported as 10,000.
 */

/** The bucket of `ms`, in SQL, of a numeric expression (the same edges as `bucketUpperEdge`). */
export const latencyBucketSql = (ms: string) => `(case
    when ${ms} < 1000 then floor(greatest(${ms}, 0) / 25)
    when ${ms} < 3000 then 40 + floor((${ms} - 1000) / 100)
    when ${ms} < 10000 then 60 + floor((${ms} - 3000) / 500)
    else 74 end)::smallint`;

export const LATENCY_BUCKETS = 75;

/** The bucket's upper edge, ms (the overflow bucket: 10,000). */
export function bucketUpperEdge(bucket: number): number {
  if (bucket < 40) return (bucket + 1) * 25;
  if (bucket < 60) return 1000 + (bucket - 39) * 100;
  if (bucket < 74) return 3000 + (bucket - 59) * 500;
  return 10_000;
}

/** The bucket `ms` falls in (tests compare the SQL's with it). */
export function bucketOf(ms: number): number {
  if (ms < 1000) return Math.floor(Math.max(ms, 0) / 25);
  if (ms < 3000) return 40 + Math.floor((ms - 1000) / 100);
  if (ms < 10_000) return 60 + Math.floor((ms - 3000) / 500);
  return 74;
}

/** The nearest-rank percentile `p` of a histogram (`counts[bucket]`), as its bucket's upper edge; null when empty. */
export function histogramPercentile(counts: ReadonlyMap<number, number>, p: number): number | null {
  const total = [...counts.values()].reduce((sum, n) => sum + n, 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * total));
  let seen = 0;
  for (const bucket of [...counts.keys()].sort((a, b) => a - b)) {
    seen += counts.get(bucket)!;
    if (seen >= rank) return bucketUpperEdge(bucket);
  }
  return bucketUpperEdge(LATENCY_BUCKETS - 1);
}
