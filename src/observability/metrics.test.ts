import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ReadinessChecks } from '../lifecycle/readiness-checks.js';
import { GatewayMetrics } from './metrics.js';

function metrics(processMetrics?: boolean): GatewayMetrics {
  const sources = {
    nodes: () => [],
    instances: () => 1,
    readiness: new ReadinessChecks(),
    requestsInFlight: () => 0,
    isKnownModel: () => true,
    usageRowsWaiting: () => 0,
    storedResponses: async () => ({ count: 0, bytes: 0 }),
  };
  return new GatewayMetrics(sources, { processMetrics });
}

test('process metrics (event-loop lag, memory) are collected by default', async () => {
  const text = await metrics().render();
  assert.match(text, /^nodejs_eventloop_lag_seconds /m);
  assert.match(text, /^process_resident_memory_bytes /m);
  assert.match(text, /^switchyard_requests_in_flight /m);
});

test("processMetrics: false leaves out the process metrics but keeps the gateway's own", async () => {
  const text = await metrics(false).render();
  assert.doesNotMatch(text, /nodejs_eventloop_lag/);
  assert.doesNotMatch(text, /process_resident_memory_bytes/);
  assert.match(text, /^switchyard_requests_in_flight /m);
});

test('a store that never answers leaves the stored-responses gauges at their last values, without holding the scrape', async () => {
  let answer: () => Promise<{ count: number; bytes: number }> = async () => ({ count: 3, bytes: 300 });
  let reads = 0;
  const gauges = new GatewayMetrics(
    {
      nodes: () => [],
      instances: () => 1,
      readiness: new ReadinessChecks(),
      requestsInFlight: () => 0,
      isKnownModel: () => true,
      usageRowsWaiting: () => 0,
      storedResponses: () => {
        reads++;
        return answer();
      },
    },
    { processMetrics: false, storeReadTimeoutMs: 50 },
  );
  assert.match(await gauges.render(), /^switchyard_stored_responses 3$/m);
  answer = () => new Promise(() => {});
  for (let scrape = 0; scrape < 2; scrape++) {
    const started = Date.now();
    const text = await gauges.render();
    assert.ok(Date.now() - started < 1_000, `scrape ${scrape} took ${Date.now() - started} ms`);
    assert.match(text, /^switchyard_stored_responses 3$/m);
    assert.match(text, /^switchyard_stored_response_bytes 300$/m);
  }
  // The hung read is waited on again, not repeated against a stalled store.
  assert.equal(reads, 2);
});
