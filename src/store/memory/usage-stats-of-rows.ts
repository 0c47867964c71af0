import type { UsageRow, UsageStatsBucket, UsageStatsQuery } from '../records.js';

/** What one bucket of one series collects before its percentiles are taken. */
interface OpenBucket {
  readonly start: number;
  readonly group: string | null;
  requests: number;
  errors: number;
  readonly latencies: number[];
  promptTokens: number;
  completionTokens: number;
  reasoningTokens: number;
  costNano: number;
}

/** The `fraction` percentile of sorted values, interpolated between ranks as PostgreSQL's percentile_cont does. */
export function interpolatedPercentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return 0;
  const position = fraction * (sorted.length - 1);
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  const low = sorted[lower] ?? 0;
  return low + ((sorted[upper] ?? low) - low) * (position - lower);
}

/**
 * Time buckets over usage rows (the memory store's kept rows): the same buckets, in the
 * same order (start, then group), as the SQL store's query gives.
 */
export function usageStatsOfRows(rows: Iterable<UsageRow>, query: UsageStatsQuery): UsageStatsBucket[] {
  const from = Date.parse(query.from);
  const to = Date.parse(query.to);
  const widthMs = query.bucketSeconds * 1000;
  const buckets = new Map<string, OpenBucket>();
  for (const row of rows) {
    const time = Date.parse(row.createdAt);
    if (time < from || time >= to) continue;
    const start = Math.floor(time / widthMs) * widthMs;
    const group =
      query.groupBy === 'model'
        ? row.model
        : query.groupBy === 'node'
          ? row.node
          : query.groupBy === 'end_user'
            ? row.endUser
            : null;
    const id = `${start}\u0000${group ?? ''}`;
    let bucket = buckets.get(id);
    if (bucket === undefined) {
      bucket = {
        start,
        group,
        requests: 0,
        errors: 0,
        latencies: [],
        promptTokens: 0,
        completionTokens: 0,
        reasoningTokens: 0,
        costNano: 0,
      };
      buckets.set(id, bucket);
    }
    bucket.requests++;
    if (row.status >= 400) bucket.errors++;
    bucket.latencies.push(row.latencyMs);
    bucket.promptTokens += row.promptTokens;
    bucket.completionTokens += row.completionTokens;
    bucket.reasoningTokens += row.reasoningTokens;
    bucket.costNano += row.costNano;
  }
  return [...buckets.values()]
    .sort((a, b) => a.start - b.start || compareGroups(a.group, b.group))
    .map(({ latencies, start, ...bucket }) => {
      latencies.sort((a, b) => a - b);
      return {
        ...bucket,
        start: new Date(start).toISOString(),
        latencyP50Ms: interpolatedPercentile(latencies, 0.5),
        latencyP95Ms: interpolatedPercentile(latencies, 0.95),
      };
    });
}

/** By code unit, no group (null) last: PostgreSQL's ORDER BY for these names. */
function compareGroups(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a < b ? -1 : 1;
}
