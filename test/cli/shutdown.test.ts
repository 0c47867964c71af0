import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { scratchDirectory, startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { sseData } from '../support/sse.js';
import { chatBody, postChat } from '../support/post-chat.js';

const KEY = 'sk-cli-shutdown-0123456789';

/** `switchyard serve --config FILE` in a child process, the file written into its own scratch directory. */
function serve(yaml: string): Promise<GatewayProcess> {
  const directory = scratchDirectory('shutdown');
  const file = join(directory, 'gateway.yaml');
  writeFileSync(file, yaml);
  // The file names no store, so the default one is made in that directory.
  return startGatewayProcess(file, {}, directory);
}

test(
  'SIGTERM: the child stops accepting, a short stream finishes, a long one gets the shutting_down error event after grace_ms, exit code 0',
  { timeout: 40_000 },
  async (t) => {
    const served = await serve(`listen: { host: 127.0.0.1, port: 0 }
shutdown: { grace_ms: 800 }
nodes:
  - { id: sim, provider: simulated, max_concurrency: 8, simulated: { tokens_per_second: 20 } }
models:
  - { id: thinker, reasoning: { default_effort: high }, routes: [{ node: sim }] }
keys: [{ key: ${KEY} }]
`);
    t.after(() => served.child.kill('SIGKILL'));
    const post = (extra: Record<string, unknown>) =>
      postChat(served.baseUrl, KEY, chatBody('thinker', { stream: true, ...extra }), { timeoutMs: 20_000 });
    const long = await post({});
    const short = await post({ max_tokens: 6, reasoning_effort: 'low' });
    assert.equal(long.status, 200);
    assert.equal(short.status, 200);
    const longText = long.text();
    const shortText = short.text();

    const signalled = Date.now();
    served.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 200));
    await assert.rejects(
      fetch(`${new URL(served.baseUrl).origin}/healthz`, { signal: AbortSignal.timeout(2000) }),
      'no new connections',
    );
    const shortEvents = sseData(await shortText);
    assert.equal(shortEvents.at(-1), '[DONE]');
    const longEvents = sseData(await longText);
    const last = JSON.parse(longEvents.at(-1) as string) as { error: { code: string } };
    assert.equal(last.error.code, 'shutting_down');
    const cutAfter = Date.now() - signalled;
    assert.ok(cutAfter >= 700, `the long stream ran for the grace period (${cutAfter} ms)`);

    assert.equal(await served.exited, 0, served.stdout());
    const lines = served
      .stdout()
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.ok(lines.some((line) => line.msg === 'signal received' && line.signal === 'SIGTERM'));
    assert.equal(lines.find((line) => line.msg === 'shutdown complete')?.cut, 1);
    assert.equal(
      lines.filter((line) => line.msg === 'request').length,
      2,
      'both streams have their log line before exit',
    );
  },
);

test('log.format pretty: human-readable lines instead of JSON', { timeout: 30_000 }, async (t) => {
  // In memory: the log format has nothing to do with the store, and PGlite's first start takes seconds.
  const served = await serve(`listen: { host: 127.0.0.1, port: 0 }
store: memory
log: { format: pretty }
nodes: [{ id: sim, provider: simulated }]
models: [{ id: m, routes: [{ node: sim }] }]
keys: [{ key: ${KEY} }]
`);
  t.after(() => served.child.kill('SIGKILL'));
  const response = await fetch(`${served.baseUrl}/models`, { headers: { authorization: `Bearer ${KEY}` } });
  assert.equal(response.status, 200);
  await response.arrayBuffer();
  served.child.kill('SIGTERM');
  assert.equal(await served.exited, 0);
  const output = served.stdout();
  assert.match(output, /INFO.*request/);
  assert.match(output, /request_id: "req_/);
  assert.ok(
    output.split('\n').every((line) => !line.startsWith('{')),
    output,
  );
});
