import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { SimulatedNode } from '../../src/simulator/simulated-node.js';
import { chatBody, postChat } from '../support/post-chat.js';
import {
  SPAN_KIND,
  STATUS_CODE,
  startOtlpReceiver,
  type OtlpReceiver,
  type ReceivedSpan,
} from '../support/otlp-receiver.js';
import { startSimulator, startTestGateway, type TestGateway } from '../support/test-gateway.js';

/**
 * OpenTelemetry traces (PRODUCT.md decision 29), received by an OTLP/HTTP receiver that
 * decodes the protobuf the official exporter sends with the OTLP .proto files: span names
 * and kinds, parent/child links, the client's traceparent continued, the traceparent each
 * node received, and the GenAI attributes against what the client got.
 */

const TIMEOUT = { timeout: 15_000 };
const API_KEY = 'sk-traces-0123456789abcdef';
const ALWAYS = 1_000_000;

/** A client's own trace context: a W3C traceparent it sends, and its parts. */
function clientTraceparent(): { traceId: string; spanId: string; header: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, header: `00-${traceId}-${spanId}-01` };
}

/** The SERVER span of a request (by its x-request-id) and its CLIENT spans, by attempt. */
async function traceOf(
  receiver: OtlpReceiver,
  requestId: string | null,
  attempts = 1,
): Promise<{ server: ReceivedSpan; clients: ReceivedSpan[] }> {
  assert.ok(requestId, 'the reply has an x-request-id');
  const find = (spans: ReceivedSpan[]) => {
    const server = spans.find((span) => span.attributes['switchyard.request_id'] === requestId);
    const clients =
      server === undefined
        ? []
        : spans.filter((span) => span.parentSpanId === server.spanId && span.kind === SPAN_KIND.CLIENT);
    return { server, clients };
  };
  await receiver.waitForSpans((spans) => {
    const { server, clients } = find(spans);
    return server !== undefined && clients.length >= attempts;
  });
  const { server, clients } = find(receiver.spans());
  return {
    server: server as ReceivedSpan,
    clients: clients.sort(
      (a, b) => Number(a.attributes['switchyard.attempt']) - Number(b.attributes['switchyard.attempt']),
    ),
  };
}

function portOf(node: SimulatedNode): number {
  return Number(new URL(node.baseUrl).port);
}

describe('OpenTelemetry traces over OTLP/HTTP', () => {
  let receiver: OtlpReceiver;
  let good: SimulatedNode;
  let failing: SimulatedNode;
  let claude: SimulatedNode;
  let gateway: TestGateway;
  let openai: OpenAI;

  before(async () => {
    receiver = await startOtlpReceiver();
    good = await startSimulator();
    failing = await startSimulator({ faults: { failFirst: { count: ALWAYS, status: 500 } } });
    claude = await startSimulator({ protocol: 'anthropic' });
    gateway = await startTestGateway(`
telemetry:
  otlp: { endpoint: "${receiver.endpoint}", headers: { x-collector-tenant: switchyard-tests } }
  service_name: switchyard-under-test
  batch_interval_ms: 20
health: { failure_threshold: 1000 }
nodes:
  - { id: good, provider: openai, base_url: "${good.baseUrl}" }
  - { id: failing, provider: openai, base_url: "${failing.baseUrl}" }
  - { id: claude, provider: anthropic, base_url: "${claude.baseUrl}" }
models:
  - { id: plain, routes: [{ node: good, model: up-plain }] }
  - { id: failover, routes: [{ node: failing, model: up-first, priority: 0 }, { node: good, model: up-second, priority: 1 }] }
  - { id: sonnet, routes: [{ node: claude, model: claude-up }] }
  - { id: broken, routes: [{ node: failing, model: up-broken }] }
keys:
  - { key: ${API_KEY} }
`);
    openai = new OpenAI({ apiKey: API_KEY, baseURL: gateway.baseUrl, maxRetries: 0 });
  });

  after(async () => {
    await gateway?.close();
    await Promise.all([good, failing, claude].map((node) => node?.close()));
    await receiver?.close();
  });

  test(
    'a chat JSON reply: the client’s trace continued, one SERVER and one CLIENT span with the GenAI attributes',
    TIMEOUT,
    async () => {
      const client = clientTraceparent();
      const { data: completion, response } = await openai.chat.completions
        .create(
          { model: 'plain', messages: [{ role: 'user', content: 'Name three switch types.' }], max_tokens: 200 },
          {
            headers: { traceparent: client.header, tracestate: 'vendor=abc' },
          },
        )
        .withResponse();
      const { server, clients } = await traceOf(receiver, response.headers.get('x-request-id'));

      assert.equal(server.kind, SPAN_KIND.SERVER);
      assert.equal(server.name, 'chat plain');
      assert.equal(server.traceId, client.traceId, 'the client’s trace id');
      assert.equal(server.parentSpanId, client.spanId, 'child of the client’s span');
      assert.equal(server.attributes['http.request.method'], 'POST');
      assert.equal(server.attributes['url.path'], '/v1/chat/completions');
      assert.equal(server.attributes['http.response.status_code'], 200);
      assert.equal(server.attributes['gen_ai.operation.name'], 'chat');
      assert.equal(server.attributes['gen_ai.request.model'], 'plain');
      assert.equal(server.attributes['gen_ai.request.max_tokens'], 200);
      assert.equal(server.attributes['gen_ai.usage.input_tokens'], completion.usage?.prompt_tokens);
      assert.equal(server.attributes['gen_ai.usage.output_tokens'], completion.usage?.completion_tokens);
      assert.equal(server.status.code, STATUS_CODE.UNSET);
      assert.equal(server.resource['service.name'], 'switchyard-under-test');

      assert.equal(clients.length, 1);
      const [attempt] = clients as [ReceivedSpan];
      assert.equal(attempt.kind, SPAN_KIND.CLIENT);
      assert.equal(attempt.name, 'chat up-plain', 'named after the model the node was sent');
      assert.equal(attempt.traceId, client.traceId);
      assert.deepEqual(
        {
          operation: attempt.attributes['gen_ai.operation.name'],
          provider: attempt.attributes['gen_ai.provider.name'],
          requestModel: attempt.attributes['gen_ai.request.model'],
          responseId: attempt.attributes['gen_ai.response.id'],
          responseModel: attempt.attributes['gen_ai.response.model'],
          finishReasons: attempt.attributes['gen_ai.response.finish_reasons'],
          inputTokens: attempt.attributes['gen_ai.usage.input_tokens'],
          outputTokens: attempt.attributes['gen_ai.usage.output_tokens'],
          address: attempt.attributes['server.address'],
          port: attempt.attributes['server.port'],
          node: attempt.attributes['switchyard.node'],
          attemptNumber: attempt.attributes['switchyard.attempt'],
          status: attempt.attributes['http.response.status_code'],
        },
        {
          operation: 'chat',
          provider: 'openai',
          requestModel: 'up-plain',
          responseId: completion.id,
          responseModel: completion.model,
          finishReasons: [completion.choices[0]?.finish_reason],
          inputTokens: completion.usage?.prompt_tokens,
          outputTokens: completion.usage?.completion_tokens,
          address: '127.0.0.1',
          port: portOf(good),
          node: 'good',
          attemptNumber: 1,
          status: 200,
        },
      );
      assert.ok(Number(completion.usage?.completion_tokens) > 0);
      assert.ok(attempt.startNs >= server.startNs && attempt.endNs <= server.endNs, 'the attempt within the request');
      assert.equal(attempt.attributes['gen_ai.input.messages'], undefined, 'no content by default');
      assert.equal(attempt.attributes['gen_ai.output.messages'], undefined, 'no content by default');

      const sent = good.stats().lastRequest?.headers;
      assert.equal(
        sent?.traceparent,
        `00-${client.traceId}-${attempt.spanId}-01`,
        'the node got the CLIENT span’s context',
      );
      assert.equal(sent?.tracestate, 'vendor=abc', 'the client’s tracestate goes along');
      assert.equal(receiver.lastHeaders?.['x-collector-tenant'], 'switchyard-tests', 'telemetry.otlp.headers sent');
    },
  );

  test('a chat stream: time to the first chunk, and the usage of the final chunk', TIMEOUT, async () => {
    const { data: stream, response } = await openai.chat.completions
      .create({ model: 'plain', messages: [{ role: 'user', content: 'Stream it.' }], stream: true })
      .withResponse();
    let usage: OpenAI.CompletionUsage | undefined;
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      usage = chunk.usage ?? usage;
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    const { server, clients } = await traceOf(receiver, response.headers.get('x-request-id'));
    assert.equal(server.parentSpanId, '', 'no traceparent from the client: a root span');
    const [attempt] = clients as [ReceivedSpan];
    assert.ok(usage !== undefined && usage.completion_tokens > 0);
    assert.equal(attempt.attributes['gen_ai.request.stream'], true);
    assert.equal(attempt.attributes['gen_ai.usage.input_tokens'], usage.prompt_tokens);
    assert.equal(attempt.attributes['gen_ai.usage.output_tokens'], usage.completion_tokens);
    assert.deepEqual(attempt.attributes['gen_ai.response.finish_reasons'], [finish]);
    const firstChunk = attempt.attributes['gen_ai.response.time_to_first_chunk'];
    assert.ok(
      typeof firstChunk === 'number' && firstChunk > 0 && firstChunk < 5,
      `time to first chunk ${firstChunk} s`,
    );
    assert.ok(attempt.events.some((event) => event.name === 'gen_ai.first_chunk'));
    assert.equal(
      good.stats().lastRequest?.headers.traceparent,
      `00-${server.traceId}-${attempt.spanId}-01`,
      'a root trace is sent on too',
    );
  });

  test(
    'a failover: two CLIENT spans, attempt 1 failed with error.type, attempt 2 answered; each node got its own traceparent',
    TIMEOUT,
    async () => {
      const client = clientTraceparent();
      const response = await postChat(gateway.baseUrl, API_KEY, chatBody('failover'), {
        headers: { traceparent: client.header },
      });
      assert.equal(response.status, 200);
      await response.json();
      const { server, clients } = await traceOf(receiver, response.headers.get('x-request-id'), 2);
      assert.equal(clients.length, 2);
      const [first, second] = clients as [ReceivedSpan, ReceivedSpan];
      assert.deepEqual(
        [first.attributes['switchyard.attempt'], first.attributes['switchyard.node'], first.name],
        [1, 'failing', 'chat up-first'],
      );
      assert.equal(first.attributes['error.type'], '500');
      assert.equal(first.attributes['http.response.status_code'], 500);
      assert.equal(first.status.code, STATUS_CODE.ERROR);
      assert.deepEqual(
        [second.attributes['switchyard.attempt'], second.attributes['switchyard.node'], second.name],
        [2, 'good', 'chat up-second'],
      );
      assert.equal(second.attributes['error.type'], undefined);
      assert.notEqual(second.status.code, STATUS_CODE.ERROR);
      // The SDK anchors each span's clock to Date.now() (millisecond steps): a little slack.
      assert.ok(first.endNs <= second.startNs + 2_000_000n, 'one after the other');
      assert.equal(server.status.code, STATUS_CODE.UNSET, 'the client got its answer');
      assert.equal(failing.stats().lastRequest?.headers.traceparent, `00-${client.traceId}-${first.spanId}-01`);
      assert.equal(good.stats().lastRequest?.headers.traceparent, `00-${client.traceId}-${second.spanId}-01`);
    },
  );

  test('the Anthropic Messages door (native to an Anthropic node), through the official SDK', TIMEOUT, async () => {
    const client = clientTraceparent();
    const anthropic = new Anthropic({ apiKey: API_KEY, baseURL: new URL(gateway.baseUrl).origin, maxRetries: 0 });
    const { data: message, response } = await anthropic.messages
      .create(
        { model: 'sonnet', max_tokens: 300, messages: [{ role: 'user', content: 'Which gauge is standard?' }] },
        { headers: { traceparent: client.header } },
      )
      .withResponse();
    const { server, clients } = await traceOf(receiver, response.headers.get('x-request-id'));
    assert.equal(server.name, 'chat sonnet');
    assert.equal(server.attributes['url.path'], '/v1/messages');
    assert.equal(server.attributes['switchyard.front_door'], 'messages');
    assert.equal(server.parentSpanId, client.spanId);
    const [attempt] = clients as [ReceivedSpan];
    assert.equal(attempt.name, 'chat claude-up');
    assert.equal(attempt.attributes['gen_ai.provider.name'], 'anthropic');
    assert.equal(attempt.attributes['gen_ai.request.max_tokens'], 300);
    assert.equal(attempt.attributes['gen_ai.response.id'], message.id);
    assert.equal(attempt.attributes['gen_ai.usage.input_tokens'], message.usage.input_tokens);
    assert.equal(attempt.attributes['gen_ai.usage.output_tokens'], message.usage.output_tokens);
    assert.equal(attempt.attributes['gen_ai.usage.cache_read.input_tokens'], 0);
    assert.equal(attempt.attributes['gen_ai.usage.cache_creation.input_tokens'], 0);
    assert.equal(claude.stats().lastRequest?.headers.traceparent, `00-${client.traceId}-${attempt.spanId}-01`);
  });

  test('the Responses door, streamed through the official client', TIMEOUT, async () => {
    const { data: stream, response } = await openai.responses
      .create({ model: 'plain', input: 'Say something about points and crossings.', stream: true })
      .withResponse();
    let usage: { input_tokens: number; output_tokens: number } | undefined;
    for await (const event of stream)
      if (event.type === 'response.completed') usage = event.response.usage ?? undefined;
    const { server, clients } = await traceOf(receiver, response.headers.get('x-request-id'));
    assert.equal(server.name, 'chat plain');
    assert.equal(server.attributes['switchyard.front_door'], 'responses');
    const [attempt] = clients as [ReceivedSpan];
    assert.ok(usage !== undefined);
    assert.equal(attempt.attributes['gen_ai.usage.input_tokens'], usage.input_tokens);
    assert.equal(attempt.attributes['gen_ai.usage.output_tokens'], usage.output_tokens);
  });

  test(
    'a refused request: a SERVER span with its status and error.type, no CLIENT span, ERROR only for 5xx',
    TIMEOUT,
    async () => {
      const unknown = await postChat(gateway.baseUrl, API_KEY, chatBody('no-such-model'));
      assert.equal(unknown.status, 404);
      const wrongKey = await postChat(gateway.baseUrl, 'sk-traces-wrong-0123456789', chatBody('plain'));
      assert.equal(wrongKey.status, 401);
      const requestIds = [unknown.headers.get('x-request-id'), wrongKey.headers.get('x-request-id')];
      const spans = await receiver.waitForSpans((all) =>
        requestIds.every((id) => all.some((span) => span.attributes['switchyard.request_id'] === id)),
      );
      const [notFound, unauthorized] = requestIds.map(
        (id) => spans.find((span) => span.attributes['switchyard.request_id'] === id) as ReceivedSpan,
      ) as [ReceivedSpan, ReceivedSpan];
      assert.equal(notFound.attributes['http.response.status_code'], 404);
      assert.equal(notFound.attributes['error.type'], 'model_unavailable');
      assert.equal(notFound.name, 'chat no-such-model');
      assert.equal(unauthorized.attributes['http.response.status_code'], 401);
      assert.equal(unauthorized.name, 'chat', 'no model read before the key was refused');
      for (const span of [notFound, unauthorized]) {
        assert.equal(span.status.code, STATUS_CODE.UNSET, 'a client error is not the server’s');
        assert.equal(spans.filter((other) => other.parentSpanId === span.spanId).length, 0);
      }
    },
  );

  test('every node failing: the SERVER span is an ERROR with the 503 the client got', TIMEOUT, async () => {
    const response = await postChat(gateway.baseUrl, API_KEY, chatBody('broken'));
    assert.equal(response.status, 503);
    const { server, clients } = await traceOf(receiver, response.headers.get('x-request-id'));
    assert.equal(server.attributes['http.response.status_code'], 503);
    assert.equal(server.attributes['error.type'], 'router_unavailable');
    assert.equal(server.status.code, STATUS_CODE.ERROR);
    assert.equal(clients[0]?.status.code, STATUS_CODE.ERROR);
  });

  test('a client trace that is not sampled: no span exported, the node still gets a traceparent', TIMEOUT, async () => {
    const client = clientTraceparent();
    const unsampled = await postChat(gateway.baseUrl, API_KEY, chatBody('plain'), {
      headers: { traceparent: client.header.replace(/-01$/, '-00') },
    });
    assert.equal(unsampled.status, 200);
    await unsampled.json();
    const sent = String(good.stats().lastRequest?.headers.traceparent);
    assert.match(sent, new RegExp(`^00-${client.traceId}-[0-9a-f]{16}-00$`));
    // A later request's spans arrive after the unsampled one's would have.
    const later = await postChat(gateway.baseUrl, API_KEY, chatBody('plain'));
    await later.json();
    await traceOf(receiver, later.headers.get('x-request-id'));
    assert.equal(receiver.spans().filter((span) => span.traceId === client.traceId).length, 0);
  });

  test('paths that are not chat requests make no span', TIMEOUT, async () => {
    const before = receiver.spans().length;
    const models = await fetch(`${gateway.baseUrl}/models`, { headers: { authorization: `Bearer ${API_KEY}` } });
    assert.equal(models.status, 200);
    const probe = await postChat(gateway.baseUrl, API_KEY, chatBody('plain'));
    await probe.json();
    const spans = await receiver.waitForSpans((all) =>
      all.some((span) => span.attributes['switchyard.request_id'] === probe.headers.get('x-request-id')),
    );
    assert.equal(
      spans.slice(before).filter((span) => span.attributes['url.path'] === '/v1/models').length,
      0,
      'GET /v1/models is not traced',
    );
  });
});

describe('message content in spans', () => {
  test(
    'absent by default (above); with capture_content: true, the input and output messages, bounded',
    TIMEOUT,
    async (t) => {
      const receiver = await startOtlpReceiver();
      const node = await startSimulator();
      const gateway = await startTestGateway(`
telemetry:
  otlp: { endpoint: "${receiver.endpoint}/v1/traces" }
  capture_content: true
  max_content_chars: 40
  batch_interval_ms: 20
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
        await receiver.close();
      });
      const question = 'What is a frog in railway terms? Answer at length, please, with examples.';
      const response = await postChat(gateway.baseUrl, API_KEY, {
        model: 'plain',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: question },
        ],
      });
      const completion = (await response.json()) as { choices: Array<{ message: { content: string } }> };
      const { clients } = await traceOf(receiver, response.headers.get('x-request-id'));
      const [attempt] = clients as [ReceivedSpan];
      const input = JSON.parse(String(attempt.attributes['gen_ai.input.messages'])) as Array<{
        role: string;
        parts: Array<{ type: string; content: string }>;
      }>;
      assert.deepEqual(input, [
        { role: 'system', parts: [{ type: 'text', content: 'Be brief.' }] },
        { role: 'user', parts: [{ type: 'text', content: question.slice(0, 40 - 'Be brief.'.length) }] },
      ]);
      const output = JSON.parse(String(attempt.attributes['gen_ai.output.messages'])) as Array<{
        role: string;
        parts: Array<{ type: string; content: string }>;
        finish_reason: string;
      }>;
      assert.equal(output[0]?.role, 'assistant');
      assert.equal(output[0]?.parts[0]?.content, completion.choices[0]?.message.content.slice(0, 40));
    },
  );
});

describe('the standard OTEL_EXPORTER_OTLP_* variables', () => {
  test('OTEL_EXPORTER_OTLP_ENDPOINT and _HEADERS turn tracing on without a telemetry section', TIMEOUT, async (t) => {
    const receiver = await startOtlpReceiver();
    const node = await startSimulator();
    const saved = {
      endpoint: process.env.OTEL_EXPORTER_OTLP_ENDPOINT,
      headers: process.env.OTEL_EXPORTER_OTLP_HEADERS,
    };
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.endpoint;
    process.env.OTEL_EXPORTER_OTLP_HEADERS = 'x-from-env=yes';
    let gateway: TestGateway | undefined;
    t.after(async () => {
      await gateway?.close();
      await node.close();
      await receiver.close();
    });
    try {
      gateway = await startTestGateway(`
nodes:
  - { id: node, provider: openai, base_url: "${node.baseUrl}" }
models:
  - { id: plain, routes: [{ node: node }] }
keys:
  - { key: ${API_KEY} }
`);
    } finally {
      for (const [name, value] of [
        ['OTEL_EXPORTER_OTLP_ENDPOINT', saved.endpoint],
        ['OTEL_EXPORTER_OTLP_HEADERS', saved.headers],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
    const response = await postChat(gateway.baseUrl, API_KEY, chatBody('plain'));
    await response.json();
    // Without batch_interval_ms the default interval applies (2 s).
    const { server } = await traceOf(receiver, response.headers.get('x-request-id'));
    assert.equal(server.name, 'chat plain');
    assert.equal(receiver.lastHeaders?.['x-from-env'], 'yes');
  });

  test(
    'with no endpoint anywhere there is no tracer: nothing is sent, no traceparent goes to nodes',
    TIMEOUT,
    async (t) => {
      const node = await startSimulator();
      const gateway = await startTestGateway(`
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
      assert.equal(gateway.running.services.tracing, undefined);
      const response = await postChat(gateway.baseUrl, API_KEY, chatBody('plain'), {
        headers: { traceparent: clientTraceparent().header },
      });
      assert.equal(response.status, 200);
      await response.json();
      assert.equal(node.stats().lastRequest?.headers.traceparent, undefined);
    },
  );
});

describe('telemetry.sample_ratio', () => {
  test('0: the traces the gateway starts are not recorded, a client’s sampled trace still is', TIMEOUT, async (t) => {
    const receiver = await startOtlpReceiver();
    const node = await startSimulator();
    const gateway = await startTestGateway(`
telemetry:
  otlp: { endpoint: "${receiver.endpoint}" }
  sample_ratio: 0
  batch_interval_ms: 20
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
      await receiver.close();
    });
    const unsampled = await postChat(gateway.baseUrl, API_KEY, chatBody('plain'));
    await unsampled.json();
    assert.match(String(node.stats().lastRequest?.headers.traceparent), /^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    const client = clientTraceparent();
    const sampled = await postChat(gateway.baseUrl, API_KEY, chatBody('plain'), {
      headers: { traceparent: client.header },
    });
    await sampled.json();
    const { server } = await traceOf(receiver, sampled.headers.get('x-request-id'));
    assert.equal(server.traceId, client.traceId);
    assert.equal(
      receiver
        .spans()
        .filter((span) => span.attributes['switchyard.request_id'] === unsampled.headers.get('x-request-id')).length,
      0,
    );
  });
});
