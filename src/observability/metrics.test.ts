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
