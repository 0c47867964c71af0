import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import type { SimulatedNode } from '../../src/simulator/simulated-node.js';
import { type RequestLogLine, startSimulator, startTestGateway, type TestGateway } from '../support/test-gateway.js';

const API_KEY = 'sk-faulty-nodes-0123456789abcdef';
const MESSAGES = [{ role: 'user' as const, content: 'Route this train to track nine.' }];

/** Runs `total` jobs with at most `concurrency` at a time. */
async function runPool<T>(total: number, concurrency: number, job: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array<T>(total);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const index = next++;
        results[index] = await job(index);
      }
    }),
  );
  return results;
}

interface Outcome {
  ok: boolean;
  error?: string;
  status?: number | undefined;
  requestId: string | null;
}

function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

describe('three faulty and healthy nodes, 1,000 requests through the openai client', () => {
  let halfFailing: SimulatedNode;
  let resetting: SimulatedNode;
  let healthy: SimulatedNode;
  let gateway: TestGateway;
  let client: OpenAI;

  /** A fresh gateway (no ejections remembered) over the same three nodes, their faults restarted. */
  async function restart(): Promise<void> {
    await gateway?.close();
    halfFailing.setFaults({ failRatio: { ratio: 0.5, status: 500 } });
    resetting.setFaults({ resetRatio: 0.5 });
    gateway = await startTestGateway(`
store: memory
nodes:
  - { id: half-failing, provider: openai, base_url: "${halfFailing.baseUrl}", max_concurrency: 8 }
  - { id: resetting, provider: openai, base_url: "${resetting.baseUrl}", max_concurrency: 8 }
  - { id: healthy, provider: openai, base_url: "${healthy.baseUrl}", max_concurrency: 8 }
models:
  - { id: pool, routes: [{ node: half-failing }, { node: resetting }, { node: healthy }] }
# Load tests: the default 600 requests/minute per key would be the bottleneck.
limits: { key: { rpm: 1000000 }, ip: { rpm: 1000000 } }
keys:
  - { key: ${API_KEY} }
`);
    client = new OpenAI({ apiKey: API_KEY, baseURL: gateway.baseUrl, maxRetries: 0, timeout: 10_000 });
  }

  before(async () => {
    halfFailing = await startSimulator({ seed: 7 });
    resetting = await startSimulator({ seed: 11 });
    healthy = await startSimulator();
  });

  after(async () => {
    await gateway?.close();
    await Promise.all([halfFailing, resetting, healthy].map((node) => node?.close()));
  });

  interface LoadResult {
    outcomes: Outcome[];
    failureKinds: Map<string, number>;
    lines: RequestLogLine[];
    byAttempts: Map<number, number>;
    stats: Record<string, { requests: number; maxInFlight: number }>;
  }

  async function runLoad(concurrency: number): Promise<LoadResult> {
    await restart();
    for (const node of [halfFailing, resetting, healthy]) node.resetStats();
    const started = performance.now();
    const outcomes = await runPool<Outcome>(1000, concurrency, async (index) => {
      try {
        if (index % 4 === 3) {
          const { data: stream, response } = await client.chat.completions
            .create({ model: 'pool', messages: MESSAGES, stream: true, max_tokens: 8 })
            .withResponse();
          let content = '';
          let sawUsage = false;
          for await (const chunk of stream) {
            content += chunk.choices[0]?.delta.content ?? '';
            if (chunk.usage) sawUsage = true;
          }
          return {
            ok: content.length > 0 && sawUsage,
            error: content.length > 0 ? 'no usage chunk' : 'empty stream',
            requestId: response.headers.get('x-request-id'),
          };
        }
        const { data, response } = await client.chat.completions
          .create({ model: 'pool', messages: MESSAGES, max_tokens: 8 })
          .withResponse();
        const ok = (data.choices[0]?.message.content ?? '').length > 0;
        return { ok, error: 'empty content', requestId: response.headers.get('x-request-id') };
      } catch (error) {
        const status = (error as { status?: unknown }).status;
        const code = (error as { code?: unknown }).code;
        return {
          ok: false,
          error: `${String(status)} ${String(code)}`,
          status: typeof status === 'number' ? status : undefined,
          requestId: null,
        };
      }
    });
    const elapsed = performance.now() - started;
    const failureKinds = new Map<string, number>();
    for (const failure of outcomes.filter((outcome) => !outcome.ok))
      failureKinds.set(failure.error ?? '?', (failureKinds.get(failure.error ?? '?') ?? 0) + 1);
    const ids = new Set(outcomes.map((outcome) => outcome.requestId).filter((id): id is string => id !== null));
    const lines = gateway
      .logs()
      .filter((line) => line.msg === 'request' && typeof line.request_id === 'string' && ids.has(line.request_id));
    const byAttempts = new Map<number, number>();
    for (const line of lines) {
      const count = line.attempts?.length ?? 0;
      byAttempts.set(count, (byAttempts.get(count) ?? 0) + 1);
    }
    const stats = { 'half-failing': halfFailing.stats(), resetting: resetting.stats(), healthy: healthy.stats() };
    console.log(
      `faulty nodes (client concurrency ${concurrency}): 1000 requests in ${Math.round(elapsed)} ms, ${outcomes.length - ids.size} failed ${JSON.stringify([...failureKinds])}; ` +
        `successful requests by attempt count ${JSON.stringify([...byAttempts].sort((a, b) => a[0] - b[0]))}; node requests/maxInFlight: ` +
        Object.entries(stats)
          .map(([name, node]) => `${name} ${node.requests}/${node.maxInFlight}`)
          .join(', '),
    );
    return { outcomes, failureKinds, lines, byAttempts, stats };
  }

  function assertFailoverInvariants(result: LoadResult): void {
    assert.ok(
      [...result.byAttempts.keys()].some((count) => count > 1),
      'the log shows failovers',
    );
    const failedAttempts = result.lines.flatMap((line) =>
      (line.attempts ?? []).filter((attempt) => attempt.error !== undefined),
    );
    assert.ok(
      failedAttempts.some((attempt) => attempt.node === 'half-failing' && attempt.status === 500),
      'a 500 from the half-failing node is logged',
    );
    assert.ok(
      failedAttempts.some((attempt) => attempt.node === 'resetting' && /reset|socket/i.test(attempt.error ?? '')),
      'a reset is logged',
    );
    assert.ok(
      failedAttempts.every((attempt) => attempt.node !== 'healthy'),
      'the healthy node never failed',
    );
    for (const [name, nodeStats] of Object.entries(result.stats)) {
      assert.ok(nodeStats.maxInFlight <= 8, `${name}: maxInFlight ${nodeStats.maxInFlight} > max_concurrency 8`);
    }
  }

  test(
    'client concurrency 8: all 1,000 succeed (JSON and stream), the log shows failovers, no node above 8',
    { timeout: 60_000 },
    async () => {
      const result = await runLoad(8);
      assert.equal(
        result.outcomes.filter((outcome) => !outcome.ok).length,
        0,
        `every request succeeds; failures: ${JSON.stringify([...result.failureKinds])}`,
      );
      assertFailoverInvariants(result);
    },
  );

  test(
    'client concurrency 32 (above the 24 slots): no node above 8; the only failures are 503 router_unavailable (printed count)',
    { timeout: 60_000 },
    async () => {
      const result = await runLoad(32);
      const failures = result.outcomes.filter((outcome) => !outcome.ok);
      assert.ok(
        failures.every((failure) => failure.error === '503 router_unavailable'),
        `failures other than 503 router_unavailable (all nodes busy or failed): ${JSON.stringify([...result.failureKinds])}`,
      );
      assertFailoverInvariants(result);
    },
  );
});

describe('added latency of one failover (instant nodes, sequential requests)', () => {
  let failingHalf: SimulatedNode;
  let resettingHalf: SimulatedNode;
  let backup: SimulatedNode;
  let gateway: TestGateway;

  before(async () => {
    failingHalf = await startSimulator({ seed: 3, faults: { failRatio: { ratio: 0.5, status: 500 } } });
    resettingHalf = await startSimulator({ seed: 5, faults: { resetRatio: 0.5 } });
    backup = await startSimulator();
    gateway = await startTestGateway(`
store: memory
health: { failure_threshold: 100000 }
nodes:
  - { id: failing-half, provider: openai, base_url: "${failingHalf.baseUrl}" }
  - { id: resetting-half, provider: openai, base_url: "${resettingHalf.baseUrl}" }
  - { id: backup, provider: openai, base_url: "${backup.baseUrl}" }
models:
  - { id: after-500, routes: [{ node: failing-half, priority: 0 }, { node: backup, priority: 1 }] }
  - { id: after-reset, routes: [{ node: resetting-half, priority: 0 }, { node: backup, priority: 1 }] }
# Load tests: the default 600 requests/minute per key would be the bottleneck.
limits: { key: { rpm: 1000000 }, ip: { rpm: 1000000 } }
keys:
  - { key: ${API_KEY} }
`);
  });

  after(async () => {
    await gateway?.close();
    await Promise.all([failingHalf, resettingHalf, backup].map((node) => node?.close()));
  });

  async function measure(
    model: string,
    count: number,
  ): Promise<{ one: number[]; two: number[]; oneServer: number[]; twoServer: number[] }> {
    const client = new OpenAI({ apiKey: API_KEY, baseURL: gateway.baseUrl, maxRetries: 0, timeout: 5000 });
    const timings: Array<{ id: string | null; ms: number }> = [];
    for (let index = 0; index < count + 20; index++) {
      const started = performance.now();
      const { response } = await client.chat.completions
        .create({ model, messages: MESSAGES, max_tokens: 4 })
        .withResponse();
      const ms = performance.now() - started;
      if (index >= 20) timings.push({ id: response.headers.get('x-request-id'), ms }); // the first 20 warm up
    }
    const lines = new Map<string, RequestLogLine>();
    for (const line of gateway.logs())
      if (typeof line.request_id === 'string' && line.msg === 'request') lines.set(line.request_id, line);
    const result = { one: [] as number[], two: [] as number[], oneServer: [] as number[], twoServer: [] as number[] };
    for (const timing of timings) {
      const line = timing.id === null ? undefined : lines.get(timing.id);
      assert.ok(line, 'every request is logged');
      const attempts = line.attempts?.length ?? 0;
      if (attempts === 1) {
        result.one.push(timing.ms);
        result.oneServer.push(line.total_ms ?? Number.NaN);
      } else if (attempts === 2) {
        result.two.push(timing.ms);
        result.twoServer.push(line.total_ms ?? Number.NaN);
      }
    }
    return result;
  }

  test('median time of 2-attempt vs 1-attempt requests (printed, not asserted)', { timeout: 30_000 }, async () => {
    for (const model of ['after-500', 'after-reset']) {
      const { one, two, oneServer, twoServer } = await measure(model, 300);
      assert.ok(one.length > 20 && two.length > 20, `both kinds occurred: ${one.length} / ${two.length}`);
      const fmt = (value: number): string => value.toFixed(3);
      console.log(
        `failover latency (${model}): client median 1 attempt ${fmt(median(one))} ms (n=${one.length}), 2 attempts ${fmt(median(two))} ms (n=${two.length}), ` +
          `added ${fmt(median(two) - median(one))} ms; gateway total_ms median 1 attempt ${fmt(median(oneServer))} ms, 2 attempts ${fmt(median(twoServer))} ms, ` +
          `added ${fmt(median(twoServer) - median(oneServer))} ms`,
      );
    }
  });
});
