import { Counter, Gauge, Registry } from 'prom-client';
import type { PrefixCacheCounters } from './prefix-cache.js';

/** What a simulated node's metrics are read from, at each scrape. */
export interface SimulatorLoad {
  running(): number;
  waiting(): number;
  /** KV-cache in use, 0..1. */
  kvCacheUsage(): number;
  prefixCache(): PrefixCacheCounters;
}

/**
 * A simulated node's `GET /metrics`: the vLLM families a router reads a node's load from,
 * under vLLM's names (its `vllm/v1/metrics/loggers.py`) and labels (`model_name`,
 * `engine`): `vllm:num_requests_running`, `vllm:num_requests_waiting`,
 * `vllm:kv_cache_usage_perc` (and `vllm:gpu_cache_usage_perc`, its name before vLLM 0.10,
 * with the same value), and the counters `vllm:prefix_cache_queries_total` and
 * `vllm:prefix_cache_hits_total` in tokens.
 */
export function simulatorMetrics(load: SimulatorLoad, modelName: string): Registry {
  const registry = new Registry();
  const labels = { model_name: modelName, engine: '0' };
  const labelNames = ['model_name', 'engine'] as const;
  const gauge = (name: string, help: string, read: () => number): void => {
    new Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        this.set(labels, read());
      },
    });
  };
  gauge('vllm:num_requests_running', 'Number of requests in model execution batches.', () => load.running());
  gauge('vllm:num_requests_waiting', 'Number of requests waiting to be processed.', () => load.waiting());
  gauge('vllm:kv_cache_usage_perc', 'KV-cache usage. 1 means 100 percent usage.', () => load.kvCacheUsage());
  gauge('vllm:gpu_cache_usage_perc', 'GPU KV-cache usage. 1 means 100 percent usage.', () => load.kvCacheUsage());
  const counter = (name: string, help: string, read: () => number): void => {
    let reported = 0;
    new Counter({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        const total = read();
        this.inc(labels, total - reported);
        reported = total;
      },
    });
  };
  counter(
    'vllm:prefix_cache_queries_total',
    'Prefix cache queries, in terms of number of queried tokens.',
    () => load.prefixCache().queriedTokens,
  );
  counter(
    'vllm:prefix_cache_hits_total',
    'Prefix cache hits, in terms of number of cached tokens.',
    () => load.prefixCache().hitTokens,
  );
  return registry;
}
