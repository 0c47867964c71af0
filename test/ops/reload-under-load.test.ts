import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { Agent, request } from 'undici';
import { postgresBackend } from '../support/store-backends.js';
import { startSimulator, startTestGateway, type RequestLogLine } from '../support/test-gateway.js';

/**
 * A reload swaps one configuration snapshot, and a request reads the one it started with
 * to its end (docs/architecture.md). Two configurations flip back and forth while JSON
 * requests and streams run through the real HTTP server: `alpha` exists only in the first
 * (on node-x, 1 USD per million tokens), `beta` only in the second (node-y, 1,000 USD),
 * and `shared` is in both, moved and repriced the same way; the limits differ too, so every
 * flip swaps the rate limiter. Every request served must have been priced, routed and
 * resolved by one configuration: node-x with the cheap price, or node-y with the dear one.
 * On PostgreSQL (in memory when it cannot be reached), so that a reload's store writes take
 * real time while requests run.
 */
const KEY = 'sk-ops-reload-0123456789abcdef';
const REQUESTS = 360;
const CLIENTS = 36;
const MAX_RELOADS = 80;

interface Served {
  readonly model: string;
  readonly stream: boolean;
  readonly requestId: string;
  readonly status: number;
  readonly errorCode: string | undefined;
  /** Reloads finished when the request was sent, and when its reply had ended. */
  readonly generationAtStart: number;
  readonly generationAtEnd: number;
}

function yaml(version: 1 | 2, nodeUrl: string, store: string, journalDir: string): string {
  const models =
    version === 1
      ? `
  - { id: shared, pricing: { input: 1, output: 1 }, routes: [{ node: node-x }] }
  - { id: alpha, pricing: { input: 1, output: 1 }, routes: [{ node: node-x }] }`
      : `
  - { id: shared, pricing: { input: 1000, output: 1000 }, routes: [{ node: node-y }] }
  - { id: beta, pricing: { input: 1000, output: 1000 }, routes: [{ node: node-y }] }`;
  return `
store: "${store}"
usage: { journal_dir: "${journalDir}" }
nodes:
  - { id: node-x, provider: openai, base_url: "${nodeUrl}", max_concurrency: 500 }
  - { id: node-y, provider: openai, base_url: "${nodeUrl}", max_concurrency: 500 }
models:${models}
limits: { key: { rpm: ${version === 1 ? 1_000_000 : 999_999} }, ip: { rpm: 1000000 } }
keys: [{ key: ${KEY} }]
`;
}

/** USD per million tokens the request was charged: 1 under the first configuration, 1,000 under the second. */
function pricePerMillion(line: RequestLogLine): number {
  const usage = line.usage as { total_tokens?: number } | undefined;
  const tokens = usage?.total_tokens ?? 0;
  assert.ok(tokens > 0, `request ${String(line.request_id)} booked tokens`);
  return (Number(line.cost_usd) / tokens) * 1_000_000;
}

test('requests under load each see one configuration while reloads flip it', { timeout: 90_000 }, async () => {
  const backend = await postgresBackend('reload-under-load');
  const store = backend.skip === undefined ? backend.store : 'memory';
  const node = await startSimulator({ firstByteMs: 25, tokensPerSecond: 250 });
  // The usage journal in the backend's own folder, never the working directory's default.
  const version = (which: 1 | 2) => yaml(which, node.baseUrl, store, backend.journalDir);
  const gateway = await startTestGateway(version(1));
  const configs = [gateway.parse(version(1)), gateway.parse(version(2))] as const;
  const agent = new Agent({ connections: CLIENTS * 2 });
  let generation = 0;
  let sending = true;
  const served: Served[] = [];
  const failures: string[] = [];
  try {
    const reloads = (async () => {
      while (sending && generation < MAX_RELOADS) {
        await gateway.running.reload(configs[(generation + 1) % 2] as (typeof configs)[number]);
        generation++;
        await sleep(10);
      }
    })();
    reloads.catch(() => undefined); // its failure is thrown where it is awaited
    let next = 0;
    const client = async () => {
      while (next < REQUESTS) {
        const index = next++;
        const model = ['shared', 'alpha', 'shared', 'beta'][index % 4] as string;
        const stream = index % 3 !== 0;
        const generationAtStart = generation;
        try {
          const response = await request(`${gateway.baseUrl}/chat/completions`, {
            method: 'POST',
            dispatcher: agent,
            headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              model,
              stream,
              max_tokens: 12,
              messages: [{ role: 'user', content: `Request ${index}: name a railway switch.` }],
            }),
          });
          const text = await response.body.text();
          const requestId = String(response.headers['x-request-id']);
          let errorCode: string | undefined;
          if (response.statusCode !== 200) errorCode = (JSON.parse(text) as { error?: { code?: string } }).error?.code;
          else if (stream && (!text.endsWith('data: [DONE]\n\n') || text.includes('"error"')))
            failures.push(`${model} stream ${requestId} ended badly: ${text.slice(-200)}`);
          served.push({
            model,
            stream,
            requestId,
            status: response.statusCode,
            errorCode,
            generationAtStart,
            generationAtEnd: generation,
          });
        } catch (error) {
          failures.push(`${model}: ${String((error as NodeJS.ErrnoException).code ?? error)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, client));
    sending = false;
    await reloads;

    assert.deepEqual(failures.slice(0, 5), [], 'no transport failure, no broken stream');
    assert.equal(served.length, REQUESTS);
    assert.ok(generation >= 4, `the configuration flipped during the load (${generation} reloads)`);
    const straddling = served.filter((entry) => entry.generationAtEnd !== entry.generationAtStart);
    assert.ok(straddling.length >= 10, `requests were running across reloads (${straddling.length})`);

    // Each request's log line, written when its response closed.
    const logLines = new Map<string, RequestLogLine>();
    const waitUntil = Date.now() + 5_000;
    while (Date.now() < waitUntil) {
      logLines.clear();
      for (const line of gateway.logs())
        if (line.msg === 'request' && line.request_id !== undefined) logLines.set(line.request_id, line);
      if (served.every((entry) => logLines.has(entry.requestId))) break;
      await sleep(50);
    }
    const mixed: string[] = [];
    const unexpected: string[] = [];
    const seen = { first: 0, second: 0 };
    for (const entry of served) {
      const line = logLines.get(entry.requestId);
      assert.ok(line, `the log line of ${entry.requestId}`);
      if (entry.status !== 200) {
        // A model only the other configuration has is unknown: that answer, and no other, is expected.
        if (entry.model === 'shared' || entry.errorCode !== 'model_unavailable' || entry.status !== 404)
          unexpected.push(`${entry.model}: ${entry.status} ${String(entry.errorCode)}`);
        continue;
      }
      const price = pricePerMillion(line);
      const first = line.node === 'node-x' && Math.abs(price - 1) < 0.05;
      const second = line.node === 'node-y' && Math.abs(price - 1000) < 50;
      const fits =
        line.model_served === entry.model &&
        (entry.model === 'alpha' ? first : entry.model === 'beta' ? second : first || second);
      if (!fits)
        mixed.push(`${entry.requestId} ${entry.model}: node ${String(line.node)}, ${price.toFixed(3)} USD per million`);
      if (first) seen.first++;
      if (second) seen.second++;
    }
    // No error but the other configuration's unknown model; no request served with parts of two configurations.
    assert.deepEqual({ unexpected: unexpected.slice(0, 10), mixed: mixed.slice(0, 10) }, { unexpected: [], mixed: [] });
    assert.ok(seen.first > 0 && seen.second > 0, `both configurations served requests (${JSON.stringify(seen)})`);
  } finally {
    sending = false;
    await agent.close();
    await gateway.close();
    await node.close();
    await backend.cleanup();
  }
});
