import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { SimulatedNode } from '../../src/simulator/simulated-node.js';
import { expectError } from '../support/http-assertions.js';
import { startSimulator, startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { postChat } from '../support/post-chat.js';

/**
 * Every input is bounded (PRODUCT.md decision 22): JSON nesting depth (`http.max_json_depth`),
 * numbers (finite, within the field's range), and the client strings an error message or a
 * log line repeats (cut with a visible marker). Real HTTP against the real server and a
 * simulated node that records what it receives.
 */

const API_KEY = 'sk-ops-input-bounds-0123456789';
const ADMIN_KEY = 'admin-ops-input-bounds-0123456789';
const TIMEOUT = { timeout: 60_000 };
const MAX_DEPTH = 16;
const BASE = { model: 'm', messages: [{ role: 'user', content: 'Count the wagons.' }] };
const MEGABYTE = 1024 * 1024;
const INVALID = { status: 400, code: 'validation_failed', type: 'invalid_request_error' } as const;

/** JSON for `1` nested `depth` levels deep in arrays or objects. */
function nested(depth: number, inArray: boolean): string {
  return inArray ? `${'['.repeat(depth)}1${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** A chat body with `extra` (raw JSON text) as an unknown top-level field. */
function withExtra(extra: string): string {
  return `${JSON.stringify(BASE).slice(0, -1)},"extra":${extra}}`;
}

describe('input bounds: nesting depth, number ranges, echoed strings', () => {
  let node: SimulatedNode;
  let gateway: TestGateway;

  const post = (body: unknown) => postChat(gateway.baseUrl, API_KEY, body, { timeoutMs: 20_000 });

  const expectServed = async (body: unknown) => {
    const response = await post(body);
    const text = await response.text();
    assert.equal(response.status, 200, text.slice(0, 300));
    return node.stats().lastRequest?.body as Record<string, unknown>;
  };

  before(async () => {
    node = await startSimulator();
    gateway = await startTestGateway(`
admin_key: ${ADMIN_KEY}
http: { max_json_depth: ${MAX_DEPTH} }
health: { failure_threshold: 1 }
nodes: [{ id: a, provider: openai, base_url: "${node.baseUrl}" }]
models: [{ id: m, reasoning: { default_effort: low }, routes: [{ node: a }] }]
keys: [{ key: ${API_KEY} }]
`);
  });

  after(async () => {
    await gateway?.close();
    await node?.close();
  });

  test(
    'nesting deeper than http.max_json_depth: 400 validation_failed; the node never sees it nor fails for it',
    TIMEOUT,
    async () => {
      node.resetStats();
      // The body is one level, `extra` the rest: exactly at the limit passes, one more is refused.
      const atLimit = await expectServed(withExtra(nested(MAX_DEPTH - 1, true)));
      assert.deepEqual(atLimit.extra, JSON.parse(nested(MAX_DEPTH - 1, true)));
      const refused = await expectError(await post(withExtra(nested(MAX_DEPTH, true))), { ...INVALID, param: null });
      assert.match(refused.error.message, new RegExp(`more than ${MAX_DEPTH} levels`));

      node.resetStats();
      const deep = [
        withExtra(nested(10_000, true)),
        withExtra(nested(10_000, false)),
        `{"model":"m","messages":[{"role":"user","content":${nested(10_000, true)}}]}`,
        `{"model":"m","messages":[{"role":"user","content":"x","name":${nested(10_000, false)}}]}`,
      ];
      // failure_threshold 1: a single one counted against the node would eject it.
      for (let round = 0; round < 5; round++) {
        for (const body of deep) await expectError(await post(body), { ...INVALID, param: null });
      }
      assert.equal(node.stats().requests, 0, 'no deep body reached the node');
      await expectServed(BASE);
    },
  );

  test('admin API bodies are held to the same depth', TIMEOUT, async () => {
    const response = await fetch(`${new URL(gateway.baseUrl).origin}/admin/v1/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
      body: `{"id":"deep","name":${nested(10_000, false)}}`,
    });
    const error = await expectError(response, { ...INVALID, param: null });
    assert.match(error.error.message, /levels deep/);
  });

  test(
    'integer fields: 1e400, -1e400, 1e20, 2.5 and below-minimum values are 400 naming the param',
    TIMEOUT,
    async () => {
      node.resetStats();
      const integers: Record<string, string[]> = {
        max_tokens: ['1e400', '-1e400', '1e20', '2.5', '-1', '2147483648'],
        max_completion_tokens: ['1e400', '-1e400', '1e20', '2.5', '-1', '2147483648'],
        n: ['1e400', '-1e400', '1e20', '2.5', '-1'],
        seed: ['1e400', '-1e400', '1e20', '-1e20', '2.5'],
        top_logprobs: ['1e400', '-1e400', '1e20', '2.5', '-1'],
      };
      for (const [field, values] of Object.entries(integers)) {
        for (const value of values) {
          const error = await expectError(await post(`${JSON.stringify(BASE).slice(0, -1)},"${field}":${value}}`), {
            ...INVALID,
            param: field,
          });
          assert.match(error.error.message, new RegExp(`'${field}'`), `${field}=${value}`);
        }
      }
      for (const value of ['1e400', '1e20', '2.5', '-1']) {
        await expectError(await post(`${JSON.stringify(BASE).slice(0, -1)},"reasoning":{"max_tokens":${value}}}`), {
          ...INVALID,
          param: 'reasoning.max_tokens',
        });
      }
      assert.equal(node.stats().requests, 0);
    },
  );

  test(
    'number fields and logit_bias values: ±1e400 and out-of-range values are 400 naming the param',
    TIMEOUT,
    async () => {
      node.resetStats();
      const numbers: Record<string, string[]> = {
        temperature: ['1e400', '-1e400', '1e20', '-1', '2.5'],
        top_p: ['1e400', '-1e400', '1e20', '-1', '2.5'],
        presence_penalty: ['1e400', '-1e400', '1e20', '2.5'],
        frequency_penalty: ['1e400', '-1e400', '1e20', '2.5'],
      };
      for (const [field, values] of Object.entries(numbers)) {
        for (const value of values) {
          await expectError(await post(`${JSON.stringify(BASE).slice(0, -1)},"${field}":${value}}`), {
            ...INVALID,
            param: field,
          });
        }
      }
      for (const value of ['1e400', '-1e400', '1e20', '100.5']) {
        const error = await expectError(
          await post(`${JSON.stringify(BASE).slice(0, -1)},"logit_bias":{"bias":${value}}}`),
          { ...INVALID, param: 'logit_bias.bias' },
        );
        assert.match(error.error.message, /logit_bias\.bias/);
      }
      // An unknown field would reach the node as null: refused too, named by its path.
      const unknown = await expectError(await post(withExtra('{"list":[1,{"far":1e400}]}')), {
        ...INVALID,
        param: 'extra.list[1].far',
      });
      assert.match(unknown.error.message, /finite/);
      assert.equal(node.stats().requests, 0);
    },
  );

  test('valid numbers reach the node unchanged', TIMEOUT, async () => {
    const fields = {
      max_tokens: 100,
      n: 1,
      seed: Number.MAX_SAFE_INTEGER,
      temperature: 2,
      top_p: 0,
      presence_penalty: -2,
      frequency_penalty: 1.5,
      logprobs: true,
      top_logprobs: 20,
      logit_bias: { '50256': -100, '11': 100 },
      extra: { big: 1e300, small: -1e-300 },
    };
    const received = await expectServed({ ...BASE, ...fields });
    for (const [field, value] of Object.entries(fields)) assert.deepEqual(received[field], value, field);
    const negativeSeed = await expectServed({ ...BASE, seed: -Number.MAX_SAFE_INTEGER, max_completion_tokens: 64 });
    assert.equal(negativeSeed.seed, -Number.MAX_SAFE_INTEGER);
  });

  test('a 1 MB model name: the 404 body and the log line stay short and carry the cut marker', TIMEOUT, async () => {
    const model = 'z'.repeat(MEGABYTE);
    const response = await post({ ...BASE, model });
    const error = await expectError(response, {
      status: 404,
      code: 'model_unavailable',
      type: 'invalid_request_error',
      param: 'model',
    });
    const requestId = error.error.request_id;
    assert.ok(error.error.message.length < 600, `message of ${error.error.message.length} characters`);
    assert.match(error.error.message, new RegExp(`"z{256}…\\[\\+${MEGABYTE - 256} chars\\]"`));

    const russian = await expectError(
      await postChat(gateway.baseUrl, API_KEY, { ...BASE, model }, { headers: { 'accept-language': 'ru' } }),
      { status: 404, code: 'model_unavailable', type: 'invalid_request_error' },
    );
    assert.ok(
      russian.error.message.length < 600 && russian.error.message.includes('…[+'),
      russian.error.message.slice(0, 100),
    );

    const line = gateway.logs().find((entry) => entry.request_id === requestId);
    assert.ok(line, 'the request is logged');
    assert.equal(line.model, `${'z'.repeat(256)}…[+${MEGABYTE - 256} chars]`);
    assert.ok(JSON.stringify(line).length < 2048, `log line of ${JSON.stringify(line).length} characters`);
  });

  test('a 1 MB key in a param path and a long URL path are cut the same way', TIMEOUT, async () => {
    const key = 'k'.repeat(MEGABYTE);
    const bias = await expectError(await post({ ...BASE, logit_bias: { [key]: 500 } }), INVALID);
    assert.equal(
      bias.error.param,
      `logit_bias.${'k'.repeat(256 - 'logit_bias.'.length)}…[+${MEGABYTE + 'logit_bias.'.length - 256} chars]`,
    );
    assert.ok(bias.error.message.length < 700, `message of ${bias.error.message.length} characters`);
    assert.match(bias.error.message, /must be <= 100/, 'the reason survives the cut');

    const infinite = await expectError(await post(withExtra(`{"${key}":1e400}`)), INVALID);
    assert.ok((infinite.error.param ?? '').length < 300 && infinite.error.message.length < 700);

    const path = `/v1/${'p'.repeat(8000)}`;
    const notFound = await expectError(await fetch(`${new URL(gateway.baseUrl).origin}${path}`), {
      status: 404,
      code: 'model_unavailable',
      type: 'invalid_request_error',
    });
    assert.ok(
      notFound.error.message.length < 600 && notFound.error.message.includes('…[+'),
      notFound.error.message.slice(0, 100),
    );
    const line = gateway.logs().find((entry) => entry.request_id === notFound.error.request_id);
    assert.equal(line?.path, `${path.slice(0, 256)}…[+${path.length - 256} chars]`);
  });
});
