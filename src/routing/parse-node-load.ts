/** What a node says of its own load (vLLM, SGLang), summed over its series (ranks, models). */
export interface NodeLoadReport {
  /** Requests the node is running now. */
  readonly running: number;
  /** Requests queued on the node, waiting to run. */
  readonly waiting: number;
  /** KV-cache usage 0..1 (the fullest series), or undefined when the node reports none. */
  readonly kvCacheUsage: number | undefined;
}

type Field = 'running' | 'waiting' | 'kvCacheUsage';

/**
 * The metric names read, by what they tell: vLLM's (https://docs.vllm.ai/en/stable/usage/metrics/;
 * `gpu_cache_usage_perc` before v0.8, `kv_cache_usage_perc` after, both 0..1) and SGLang's
 * (https://docs.sglang.io/references/production_metrics.html; `token_usage` is the share of
 * its KV pool in use).
 */
const METRICS: ReadonlyMap<string, Field> = new Map<string, Field>([
  ['vllm:num_requests_running', 'running'],
  ['vllm:num_requests_waiting', 'waiting'],
  ['vllm:gpu_cache_usage_perc', 'kvCacheUsage'],
  ['vllm:kv_cache_usage_perc', 'kvCacheUsage'],
  ['sglang:num_running_reqs', 'running'],
  ['sglang:num_queue_reqs', 'waiting'],
  ['sglang:token_usage', 'kvCacheUsage'],
]);

/**
 * Reads the queue and KV-cache gauges out of a Prometheus text exposition page
 * (https://prometheus.io/docs/instrumenting/exposition_formats/): one sample a line,
 * `name{labels} value [timestamp]`, comments after `#`. Only the names above are parsed;
 * every other line costs a look at its name. Running and waiting are summed over their
 * series (tensor-parallel ranks, models), the KV-cache usage is the highest. Undefined when
 * the page has neither a running nor a waiting count (not a vLLM or SGLang page, or garbage).
 */
export function parseNodeLoad(page: string): NodeLoadReport | undefined {
  let running: number | undefined;
  let waiting: number | undefined;
  let kvCacheUsage: number | undefined;
  let start = 0;
  while (start < page.length) {
    let end = page.indexOf('\n', start);
    if (end === -1) end = page.length;
    const sample = readSample(page, start, end);
    start = end + 1;
    if (sample === undefined) continue;
    if (sample.field === 'running') running = (running ?? 0) + sample.value;
    else if (sample.field === 'waiting') waiting = (waiting ?? 0) + sample.value;
    else kvCacheUsage = Math.max(kvCacheUsage ?? 0, Math.min(1, sample.value));
  }
  if (running === undefined && waiting === undefined) return undefined;
  return { running: running ?? 0, waiting: waiting ?? 0, kvCacheUsage };
}

/** The sample on page[start, end) when its metric is one read here and its value a finite number ≥ 0. */
function readSample(page: string, start: number, end: number): { field: Field; value: number } | undefined {
  const first = page.charCodeAt(start);
  // `#` (comments, HELP, TYPE) and blank lines.
  if (first === 35 || end - start < 3) return undefined;
  let nameEnd = start;
  while (nameEnd < end) {
    const code = page.charCodeAt(nameEnd);
    if (code === 123 /* { */ || code === 32 || code === 9) break;
    nameEnd++;
  }
  const field = METRICS.get(page.slice(start, nameEnd));
  if (field === undefined) return undefined;
  const line = page.slice(nameEnd, end);
  // Label values are quoted and may hold spaces or braces; the value follows the last `}`.
  const afterLabels = line.charCodeAt(0) === 123 ? line.lastIndexOf('}') + 1 : 0;
  if (afterLabels === 0 && line.charCodeAt(0) === 123) return undefined;
  const value = Number(line.slice(afterLabels).trim().split(/\s+/, 1)[0]);
  return Number.isFinite(value) && value >= 0 ? { field, value } : undefined;
}
