import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { postgresBackend } from '../support/store-backends.js';
import { TcpForwarder } from '../support/tcp-forwarder.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

// GET /metrics must answer while the store hangs: the stored-responses gauges read the store
// at scrape time. PostgreSQL is reached through a TCP forwarder the test stalls (connections
// stay open, nothing comes back), as a hung database does.

const ADMIN_KEY = 'admin-metrics-stalled-store-0123456789';
/** The readiness check's 2 s time-out and the store gauges' 1 s, run side by side, plus slack. */
const SCRAPE_WITHIN_MS = 5_000;

const postgres = await postgresBackend('metrics-stalled-store');
after(() => postgres.cleanup());

describe('GET /metrics while PostgreSQL hangs', { skip: postgres.skip, timeout: 60_000 }, () => {
  const forwarder = new TcpForwarder('127.0.0.1', Number(new URL(postgres.store).port || 5432));
  let gateway: TestGateway | undefined;

  before(async () => {
    await forwarder.open();
    const store = new URL(postgres.store);
    store.port = String(forwarder.port);
    gateway = await startTestGateway(`
store: ${store.toString()}
usage: { journal_dir: ${postgres.journalDir} }
admin_key: ${ADMIN_KEY}
nodes:
  - { id: sim, provider: simulated }
models:
  - { id: m, routes: [{ node: sim }] }
`);
  });

  after(async () => {
    // Cut first: closing the gateway's pool must not wait on the stalled connections.
    await forwarder.cut();
    await gateway?.close();
  });

  const scrape = async (): Promise<{ text: string; tookMs: number }> => {
    const started = Date.now();
    const response = await fetch(`${gateway?.origin}/metrics`, {
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
      signal: AbortSignal.timeout(20_000),
    });
    assert.equal(response.status, 200);
    return { text: await response.text(), tookMs: Date.now() - started };
  };

  test('answers in time, the stored-responses gauges at their last values and the store check down', async () => {
    const healthy = await scrape();
    assert.match(healthy.text, /^switchyard_stored_responses 0$/m);
    forwarder.stall();
    for (let round = 0; round < 2; round++) {
      const { text, tookMs } = await scrape();
      assert.ok(tookMs < SCRAPE_WITHIN_MS, `scrape ${round} took ${tookMs} ms`);
      assert.match(text, /^switchyard_stored_responses 0$/m);
      assert.match(text, /^switchyard_dependency_up\{name="store"\} 0$/m);
    }
  });
});
