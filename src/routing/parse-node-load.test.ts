import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseNodeLoad } from './parse-node-load.js';

test("vLLM's page: running and waiting summed over series, the fullest KV cache", () => {
  const page = [
    '# HELP vllm:num_requests_running Number of requests in model execution batches.',
    '# TYPE vllm:num_requests_running gauge',
    'vllm:num_requests_running{engine="0",model_name="m"} 3.0',
    'vllm:num_requests_running{engine="1",model_name="m"} 2.0',
    'vllm:num_requests_waiting{engine="0",model_name="m"} 7.0',
    'vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.42',
    'vllm:kv_cache_usage_perc{engine="1",model_name="m"} 0.93',
    'vllm:iteration_tokens_total_bucket{le="1.0",model_name="m"} 3.0',
  ].join('\n');
  assert.deepEqual(parseNodeLoad(page), { running: 5, waiting: 7, kvCacheUsage: 0.93 });
});

test("older vLLM's gpu_cache_usage_perc, and label values holding spaces and braces", () => {
  const page =
    'vllm:num_requests_waiting{model_name="a } b"} 4\nvllm:gpu_cache_usage_perc{model_name="x"} 0.5 1700000000000\n';
  assert.deepEqual(parseNodeLoad(page), { running: 0, waiting: 4, kvCacheUsage: 0.5 });
});

test("SGLang's names", () => {
  const page = [
    'sglang:num_running_reqs{model_name="m"} 12.0',
    'sglang:num_queue_reqs{model_name="m"} 30.0',
    'sglang:token_usage{model_name="m"} 0.28',
  ].join('\r\n');
  assert.deepEqual(parseNodeLoad(page), { running: 12, waiting: 30, kvCacheUsage: 0.28 });
});

test('a page without the counts, or with garbage values, reads as nothing', () => {
  assert.equal(parseNodeLoad('<html>not found</html>'), undefined);
  assert.equal(parseNodeLoad('process_cpu_seconds_total 12\n'), undefined);
  assert.equal(
    parseNodeLoad('vllm:num_requests_waiting{model_name="m"} NaN\nvllm:num_requests_running -3\n'),
    undefined,
  );
  assert.equal(parseNodeLoad(''), undefined);
});
