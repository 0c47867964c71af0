import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { describe, test, type TestContext } from 'node:test';
import { freePort } from '../support/free-port.js';
import { startOtlpReceiver } from '../support/otlp-receiver.js';
import { chatBody, postChat } from '../support/post-chat.js';
import { startSimulator, startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from '../support/wait-for.js';

/**
 * A slow, hanging, refusing or absent collector never slows or fails a request (PRODUCT.md
 * decision 29): spans wait in a bounded queue, exports give up after `timeout_ms`, and what
 * was not delivered is counted in /metrics. Timings here are sanity bounds far above a
 * request's own time (a few ms against a simulated node), never performance assertions.
 */

const TIMEOUT = { timeout: 30_000 };
const API_KEY = 'sk-trace-faults-0123456789abcdef';
const ADMIN_KEY = 'admin-trace-faults-0123456789abcdef';
const EXPORT_TIMEOUT_MS = 4_000;

async function gatewayExportingTo(t: TestContext, endpoint: string, telemetry: string): Promise<TestGateway> {
  const node = await startSimulator();
  const gateway = await startTestGateway(`
admin_key: ${ADMIN_KEY}
telemetry:
  otlp: { endpoint: "${endpoint}", timeout_ms: ${EXPORT_TIMEOUT_MS} }
${telemetry}
nodes:
  - { id: node, provider: openai, base_url: "${node.baseUrl}" }
models:
  - { id: plain, routes: [{ node: node }] }
keys:
  - { key: ${API_KEY} }
`);
  t.after(async () => {
    await gateway.close();
    await node.close();
  });
  return gateway;
}

/** `switchyard_trace_spans_dropped_total{reason}` as /metrics shows it (0 when the series is absent). */
async function droppedSpans(gateway: TestGateway, reason: 'queue_full' | 'export_failed'): Promise<number> {
  const response = await fetch(`${gateway.origin}/metrics`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  assert.equal(response.status, 200);
  const text = await response.text();
  const line = text
    .split('\n')
    .find((entry) => entry.startsWith(`switchyard_trace_spans_dropped_total{reason="${reason}"}`));
  return line === undefined ? 0 : Number(line.split(' ').pop());
}

/** Sends `count` chat requests, `parallel` at a time; every one must succeed. Returns the slowest, in ms. */
async function sendRequests(gateway: TestGateway, count: number, parallel: number): Promise<number> {
  let slowest = 0;
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      const started = performance.now();
      const response = await postChat(gateway.baseUrl, API_KEY, chatBody('plain'));
      assert.equal(response.status, 200);
      await response.json();
      slowest = Math.max(slowest, performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return slowest;
}

describe('a collector that does not answer well', () => {
  test(
    'a hanging collector: requests complete at once; spans past the queue are dropped and counted',
    TIMEOUT,
    async (t) => {
      const collector = await startOtlpReceiver('hang');
      t.after(() => collector.close());
      const gateway = await gatewayExportingTo(
        t,
        collector.endpoint,
        '  max_queue_spans: 6\n  batch_spans: 2\n  batch_interval_ms: 10',
      );
      const slowest = await sendRequests(gateway, 40, 4);
      assert.ok(slowest < EXPORT_TIMEOUT_MS, `no request waited for the collector (slowest ${slowest.toFixed(0)} ms)`);
      assert.ok(collector.requests >= 1, 'the exporter did reach the collector');
      // 40 requests make 80 spans; the queue holds 6 while an export hangs, and only an export
      // given up after timeout_ms makes room (2 spans a batch).
      const dropped = await droppedSpans(gateway, 'queue_full');
      assert.ok(dropped >= 40 && dropped <= 80 - 6, `spans dropped at the full queue: ${dropped}`);
      const closing = performance.now();
      await gateway.close();
      assert.ok(
        performance.now() - closing < 2 * EXPORT_TIMEOUT_MS + 5_000,
        'the flush at shutdown is bounded by the export time-out',
      );
    },
  );

  test('a refusing collector (closed port): requests succeed; the failed exports are counted', TIMEOUT, async (t) => {
    const port = await freePort();
    const gateway = await gatewayExportingTo(t, `http://127.0.0.1:${port}`, '  batch_interval_ms: 10');
    const slowest = await sendRequests(gateway, 20, 2);
    assert.ok(slowest < EXPORT_TIMEOUT_MS, `no request waited for the collector (slowest ${slowest.toFixed(0)} ms)`);
    await waitFor(async () => (await droppedSpans(gateway, 'export_failed')) > 0, 4 * EXPORT_TIMEOUT_MS, {
      what: 'export_failed drops in /metrics',
    });
  });

  test('graceful shutdown sends the spans still queued', TIMEOUT, async (t) => {
    const collector = await startOtlpReceiver();
    t.after(() => collector.close());
    // A batch interval far longer than the test: only the shutdown flush can send them.
    const gateway = await gatewayExportingTo(t, collector.endpoint, '  batch_interval_ms: 600000');
    const response = await postChat(gateway.baseUrl, API_KEY, chatBody('plain'));
    await response.json();
    const requestId = response.headers.get('x-request-id');
    assert.equal(collector.spans().length, 0, 'nothing exported before the shutdown');
    await gateway.close();
    const spans = collector.spans();
    assert.ok(
      spans.some((span) => span.attributes['switchyard.request_id'] === requestId),
      'the SERVER span',
    );
    assert.equal(spans.length, 2, 'SERVER and CLIENT spans');
  });
});
