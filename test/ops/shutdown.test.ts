import assert from 'node:assert/strict';
import { test } from 'node:test';
import { expectError } from '../support/http-assertions.js';
import { sseData } from '../support/sse.js';
import { startSimulator, startTestGateway } from '../support/test-gateway.js';
import { chatBody, postChat } from '../support/post-chat.js';

const API_KEY = 'sk-ops-shutdown-0123456789abcdef';
const TIMEOUT = { timeout: 15_000 };

function gatewayYaml(fastUrl: string, slowUrl: string): string {
  return `
nodes:
  - { id: fast, provider: openai, base_url: "${fastUrl}" }
  - { id: silent, provider: openai, base_url: "${slowUrl}" }
models:
  - { id: thinker, reasoning: { default_effort: high }, routes: [{ node: fast }] }
  - { id: stuck, routes: [{ node: silent }] }
keys: [{ key: ${API_KEY} }]
`;
}

test(
  'close({graceMs}) lets short streams finish, cuts long ones with an SSE error event, answers 503 to a reply not started, refuses new connections, then runs the hooks',
  TIMEOUT,
  async () => {
    const streaming = await startSimulator({ tokensPerSecond: 25 });
    const silent = await startSimulator({ firstByteMs: 10_000 });
    const gateway = await startTestGateway(gatewayYaml(streaming.baseUrl, silent.baseUrl));
    const origin = new URL(gateway.baseUrl).origin;
    const post = (body: { model: string } & Record<string, unknown>) =>
      postChat(gateway.baseUrl, API_KEY, chatBody(body.model, body));
    const hookLog: string[] = [];
    gateway.running.services.shutdownHooks.add({
      name: 'first-registered',
      run: async () => {
        hookLog.push('first');
      },
    });
    gateway.running.services.shutdownHooks.add({
      name: 'flush-usage',
      run: async () => {
        hookLog.push('flush');
        throw new Error('a failing hook does not stop the others');
      },
    });
    try {
      const long = await post({ model: 'thinker', stream: true });
      const short = await post({ model: 'thinker', stream: true, max_tokens: 3, reasoning_effort: 'low' });
      assert.equal(long.status, 200);
      assert.equal(short.status, 200);
      const pendingJson = post({ model: 'stuck' });
      const longText = long.text();
      const shortText = short.text();
      await new Promise((resolve) => setTimeout(resolve, 100));

      const started = Date.now();
      const closing = gateway.running.close({ graceMs: 600 });
      await new Promise((resolve) => setTimeout(resolve, 50));
      await assert.rejects(
        fetch(`${origin}/healthz`, { signal: AbortSignal.timeout(2000) }),
        'new connections are refused',
      );

      const shortEvents = sseData(await shortText);
      assert.equal(shortEvents.at(-1), '[DONE]', 'a stream that ends within the grace period finishes normally');

      const longEvents = sseData(await longText);
      assert.notEqual(longEvents.at(-1), '[DONE]');
      const last = JSON.parse(longEvents.at(-1) as string) as {
        error: { code: string; type: string; request_id: string };
      };
      assert.equal(last.error.code, 'shutting_down');
      assert.equal(last.error.type, 'service_unavailable');
      assert.match(last.error.request_id, /^req_/);
      assert.ok(
        longEvents.some((data) => data.includes('"usage"')),
        'the usage so far is sent before the error event',
      );

      const json = await pendingJson;
      assert.equal(json.headers.get('retry-after'), '1');
      await expectError(json, { status: 503, code: 'shutting_down', type: 'service_unavailable' });

      await closing;
      const elapsed = Date.now() - started;
      assert.ok(elapsed >= 550 && elapsed < 4000, `closed after the grace period (${elapsed} ms)`);
      assert.deepEqual(
        hookLog,
        ['flush', 'first'],
        'hooks run once, last registered first, each even if another failed',
      );
      const logs = gateway.logs();
      assert.ok(logs.some((line) => line.msg === 'shutdown hook failed' && line.hook === 'flush-usage'));
      const complete = logs.find((line) => line.msg === 'shutdown complete');
      assert.equal(complete?.cut, 2, 'the long stream and the JSON request were cut');
      const cutStream = logs.find(
        (line) => line.msg === 'request' && line.error_code === 'shutting_down' && line.stream === true,
      );
      assert.ok(cutStream, 'the cut stream has its log line');
      assert.equal(cutStream.client_aborted, false);
      await gateway.running.close();
      assert.equal(hookLog.length, 2, 'a second close does not run the hooks again');
    } finally {
      await gateway.running.close();
      await streaming.close();
      await silent.close();
    }
  },
);

/** The stream's last two events: what came before the error event, and the error event. */
function cutEnding(text: string): {
  usage: Record<string, unknown>;
  chunk: Record<string, unknown>;
  error: { code: string };
} {
  const events = sseData(text);
  assert.notEqual(events.at(-1), '[DONE]', 'a cut stream has no [DONE]');
  const error = (JSON.parse(events.at(-1) as string) as { error: { code: string } }).error;
  const chunk = JSON.parse(events.at(-2) as string) as Record<string, unknown>;
  // PRODUCT.md decision 18: without include_usage the usage rides on a chunk with a choice (here an empty delta: no finish).
  assert.deepEqual(
    chunk.choices,
    [{ index: 0, delta: {}, finish_reason: null }],
    `the event before the error carries the usage: ${events.at(-2)}`,
  );
  assert.equal(chunk.object, 'chat.completion.chunk');
  return { usage: chunk.usage as Record<string, unknown>, chunk, error };
}

test(
  'a stream still running when the grace ends gets the usage so far (estimated), then the shutting_down error event, and is booked at that usage',
  TIMEOUT,
  async () => {
    const node = await startSimulator({ tokensPerSecond: 20 });
    const gateway = await startTestGateway(gatewayYaml(node.baseUrl, node.baseUrl));
    try {
      const response = await postChat(gateway.baseUrl, API_KEY, {
        model: 'thinker',
        stream: true,
        messages: [{ role: 'user', content: 'Shunt the train slowly.' }],
      });
      assert.equal(response.status, 200);
      const text = response.text();
      await new Promise((resolve) => setTimeout(resolve, 300));
      await gateway.running.close({ graceMs: 300 });
      const { usage, chunk, error } = cutEnding(await text);
      assert.equal(error.code, 'shutting_down');
      assert.equal(usage.estimated, true, 'the node sent no usage before the cut: an estimate');
      assert.ok((usage.completion_tokens as number) > 0, 'the tokens streamed so far are counted');
      assert.match(String(chunk.id), /^chatcmpl/);
      const line = gateway.logs().find((entry) => entry.msg === 'request' && entry.error_code === 'shutting_down');
      assert.ok(line, 'the cut stream has its log line');
      assert.equal(
        (line.usage as { completion_tokens: number }).completion_tokens,
        usage.completion_tokens,
        'booked at the usage the client read',
      );
      assert.equal(line.usage_estimated, true);
    } finally {
      await gateway.running.close();
      await node.close();
    }
  },
);

test(
  'a stream cut by the request deadline (timeouts.total_ms) also gets the usage so far before the error event',
  TIMEOUT,
  async () => {
    const node = await startSimulator({ tokensPerSecond: 20 });
    const gateway = await startTestGateway(`timeouts: { total_ms: 600 }\n${gatewayYaml(node.baseUrl, node.baseUrl)}`);
    try {
      const response = await postChat(gateway.baseUrl, API_KEY, {
        model: 'thinker',
        stream: true,
        messages: [{ role: 'user', content: 'Shunt the train slowly.' }],
      });
      assert.equal(response.status, 200);
      const { usage, error } = cutEnding(await response.text());
      assert.equal(error.code, 'upstream_timeout');
      assert.ok((usage.completion_tokens as number) > 0);
    } finally {
      await gateway.running.close();
      await node.close();
    }
  },
);

test('close() with nothing in flight returns at once', TIMEOUT, async () => {
  const node = await startSimulator();
  const gateway = await startTestGateway(gatewayYaml(node.baseUrl, node.baseUrl));
  const started = Date.now();
  await gateway.running.close({ graceMs: 30_000 });
  assert.ok(Date.now() - started < 1000);
  await node.close();
});

test(
  'the Messages door: a stream cut by the shutdown grace gets a message_delta with the usage so far, then the error event (translated and native nodes)',
  TIMEOUT,
  async () => {
    const openaiNode = await startSimulator({ tokensPerSecond: 20 });
    const anthropicNode = await startSimulator({ protocol: 'anthropic', tokensPerSecond: 20 });
    const gateway = await startTestGateway(`
nodes:
  - { id: openai, provider: openai, base_url: "${openaiNode.baseUrl}" }
  - { id: anthropic, provider: anthropic, base_url: "${anthropicNode.baseUrl}" }
models:
  - { id: translated, routes: [{ node: openai }] }
  - { id: native, routes: [{ node: anthropic }] }
keys: [{ key: ${API_KEY} }]
`);
    try {
      const texts = await Promise.all(
        ['translated', 'native'].map(async (model) => {
          const response = await fetch(`${gateway.baseUrl}/messages`, {
            method: 'POST',
            headers: { 'x-api-key': API_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
            body: JSON.stringify({
              model,
              max_tokens: 400,
              stream: true,
              messages: [{ role: 'user', content: 'Shunt the train slowly.' }],
            }),
          });
          assert.equal(response.status, 200, model);
          return { model, text: response.text() };
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      await gateway.running.close({ graceMs: 300 });
      for (const { model, text } of texts) {
        const events = sseData(await text).map((data) => JSON.parse(data) as Record<string, unknown>);
        const error = events.at(-1) as { type: string; error: { type: string } };
        assert.equal(error.type, 'error', `${model}: the stream ends with the error event`);
        const delta = events.at(-2) as {
          type: string;
          delta: { stop_reason: unknown };
          usage: { output_tokens: number };
        };
        assert.equal(delta.type, 'message_delta', `${model}: the usage so far comes before the error event`);
        assert.equal(delta.delta.stop_reason, null, `${model}: the message did not stop`);
        assert.ok(delta.usage.output_tokens > 0, `${model}: the tokens streamed so far are counted`);
        const line = gateway
          .logs()
          .find((entry) => entry.msg === 'request' && entry.model === model && entry.error_code === 'shutting_down');
        assert.ok(line, `${model}: the cut stream has its log line`);
        assert.equal(
          (line.usage as { completion_tokens: number }).completion_tokens,
          delta.usage.output_tokens,
          `${model}: booked at the usage the client read`,
        );
      }
    } finally {
      await gateway.running.close();
      await openaiNode.close();
      await anthropicNode.close();
    }
  },
);
