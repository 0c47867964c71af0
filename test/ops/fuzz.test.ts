import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Pool } from 'undici';
import { mulberry32, type RandomSource } from '../../src/simulator/mulberry32.js';
import type { SimulatedNode } from '../../src/simulator/simulated-node.js';
import { rawExchange, type RawResponse } from '../support/raw-http.js';
import { startSimulator, startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { postChat } from '../support/post-chat.js';

/**
 * Throws generated malformed and adversarial bodies and raw HTTP heads at the real server.
 * Every case is invalid by construction, so each must get a 4xx in the spec's error format;
 * afterwards the gateway still serves. Seeded: a failure names its case and replays.
 */

const API_KEY = 'sk-ops-fuzz-0123456789abcdef';
const SEED = Number(process.env.FUZZ_SEED ?? 20_240_601);
const BODY_CASES = 1_800;
const RAW_CASES = 600;
const CONCURRENCY = 16;
const BODY_LIMIT = 16_384;
const MAX_MESSAGES = 64;
const VALID = { model: 'm', messages: [{ role: 'user', content: 'Inspect the switch points.' }], temperature: 0.5 };

interface Case {
  readonly name: string;
  readonly body: string | Buffer;
  readonly headers?: Record<string, string>;
}

const pick = <T>(random: RandomSource, items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
const int = (random: RandomSource, below: number): number => Math.floor(random() * below);

/** Values that are wrong for each known field (none of them is accepted by the schema). */
const BAD_VALUES: Record<string, readonly unknown[]> = {
  model: [42, '', [], {}, true, null],
  messages: [
    [],
    'hello',
    {},
    7,
    [null],
    [{}],
    [{ role: 'wizard', content: 'x' }],
    [{ role: 'user' }],
    [{ role: 'user', content: 5 }],
    [{ role: 'tool', content: 'x' }],
  ],
  stream: ['true', 1, {}, []],
  temperature: [-0.1, 2.01, 'hot', [], {}, true],
  top_p: [1.5, -1, 'x', {}],
  n: [0, -3, 1.5, 'two', 17, 1e9],
  max_tokens: [0, -1, 1.2, 'many', {}],
  presence_penalty: [3, -2.5, 'x'],
  frequency_penalty: [9, 'x', []],
  stop: [5, [1, 2], ['a', 'b', 'c', 'd', 'e'], {}],
  reasoning_effort: ['extreme', 3, {}, ''],
  reasoning: ['high', 4, { effort: 'ultra' }],
  logit_bias: [{ '1': 500 }, 'x', [1]],
  tools: ['x', [1], [{}], {}],
  top_logprobs: [21, -1, 'x'],
  response_format: ['json', {}, { type: '' }],
  user: [5, {}, []],
};

/** JSON for a value nested `depth` levels deep in arrays or objects. */
function nested(depth: number, inArray: boolean): string {
  return inArray ? `${'['.repeat(depth)}1${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

const PROTO_KEYS = ['"__proto__"', '"\\u005f_proto__"', '"__pro\\u0074o__"', '"\\u005f\\u005fproto\\u005f\\u005f"'];

function bodyCase(random: RandomSource, index: number): Case {
  const valid = JSON.stringify(VALID);
  switch (index % 10) {
    case 0: {
      const cut = 1 + int(random, valid.length - 2);
      return { name: `truncated at ${cut}`, body: valid.slice(0, cut) };
    }
    case 1: {
      const field = pick(random, Object.keys(BAD_VALUES));
      const value = pick(random, BAD_VALUES[field] as unknown[]);
      return { name: `bad ${field}=${JSON.stringify(value)}`, body: JSON.stringify({ ...VALID, [field]: value }) };
    }
    case 2: {
      const roots = [
        '1',
        '"text"',
        'true',
        'null',
        '[]',
        '[{"model":"m"}]',
        '-0',
        '1e400',
        nested(1 + int(random, 4000), true),
        '""',
      ];
      const root = pick(random, roots);
      return { name: `non-object root ${root.slice(0, 20)}`, body: root };
    }
    case 3: {
      const key = pick(random, PROTO_KEYS);
      const payload = `{${key}: {"polluted": true}}`;
      const places = [
        `{"model":"m","messages":[{"role":"user","content":"x"}],${key}:{"polluted":true}}`,
        `{"model":"m","messages":[{"role":"user","content":"x",${key}:{"polluted":true}}]}`,
        `{"model":"m","messages":[{"role":"user","content":"x"}],"extra":${payload}}`,
        `{"model":"m","messages":[{"role":"user","content":"x"}],"extra":{"constructor":{"prototype":{"polluted":true}}}}`,
        `{"model":"m","messages":[{"role":"user","content":"x"}],"extra":[[{"constructor":{"prototype":{}}}]]}`,
      ];
      return { name: 'prototype key', body: pick(random, places) };
    }
    case 4: {
      const bytes = Buffer.alloc(1 + int(random, 2000));
      for (let at = 0; at < bytes.length; at++) bytes[at] = int(random, 256);
      if (bytes[0] === 0x7b) bytes[0] = 0x23; // never start with "{": an object could (in theory) be valid
      return { name: `random bytes (${bytes.length})`, body: bytes };
    }
    case 5: {
      // Replace one structural character with one that is never valid outside a string.
      const positions = [...valid].flatMap((character, at) => ('{}[]:,"'.includes(character) ? [at] : []));
      const at = pick(random, positions);
      return {
        name: `structural char ${at} replaced`,
        body: valid.slice(0, at) + pick(random, ['#', '@', 'x', '\u0000']) + valid.slice(at + 1),
      };
    }
    case 6: {
      const kinds = [
        {
          name: 'too many messages',
          body: JSON.stringify({
            ...VALID,
            messages: Array.from({ length: MAX_MESSAGES + 1 + int(random, 500) }, () => VALID.messages[0]),
          }),
        },
        { name: 'n above the cap', body: JSON.stringify({ ...VALID, n: 9 + int(random, 100) }) },
        {
          name: 'body above the limit',
          body: JSON.stringify({ ...VALID, padding: 'x'.repeat(BODY_LIMIT + int(random, 10_000)) }),
        },
        {
          name: 'deep nesting in messages',
          body: `{"model":"m","messages":${nested(10 + int(random, 3000), random() < 0.5)}}`,
        },
      ];
      return pick(random, kinds);
    }
    case 7: {
      const conflicting = { ...VALID, reasoning_effort: 'low', reasoning: { effort: 'high' } };
      const empties = ['', ' ', '\n\t', '\ufeff', 'null', '{}', '{"model":"m"}', '{"messages":[]}'];
      return random() < 0.3
        ? { name: 'conflicting effort', body: JSON.stringify(conflicting) }
        : { name: 'empty-ish', body: pick(random, empties) };
    }
    case 8: {
      const authorizations = [
        '',
        'Bearer',
        'Bearer ',
        'Basic abc',
        `bearer ${API_KEY}x`,
        `Bearer ${'k'.repeat(5000)}`,
        'Bearer \u00e9\u00e8',
        'Token x',
      ];
      return { name: 'bad authorization', body: valid, headers: { authorization: pick(random, authorizations) } };
    }
    default: {
      const unicode = ['\ud800', '\udfff', '\u2028', '\uffff', '\u0000'];
      const escape = pick(random, ['\\x41', '\\u12', '\\uZZZZ', '\\', '\\q']);
      return random() < 0.5
        ? { name: 'bad escape', body: `{"model":"m","messages":[{"role":"user","content":"a${escape}"}]}` }
        : {
            name: 'lone surrogate role',
            body: JSON.stringify({ ...VALID, messages: [{ role: pick(random, unicode), content: 'x' }] }),
          };
    }
  }
}

function rawCase(random: RandomSource, index: number): { name: string; chunks: string[] } {
  const path = pick(random, [
    '/v1/chat/completions',
    '/v1/models',
    '/nope',
    '/admin/v1/nodes',
    '/v1/chat/completions?x=1',
    '//',
    'http://evil/v1/models',
    '*',
  ]);
  const body = '{"model":"m"}';
  switch (index % 6) {
    case 0: {
      const names = ['X Bad', 'X(y)', 'X:y', '\u0001', 'X\u007f', ' Leading', 'Ä'];
      return {
        name: 'bad header name',
        chunks: [`POST ${path} HTTP/1.1\r\nHost: x\r\n${pick(random, names)}: v\r\nContent-Length: 0\r\n\r\n`],
      };
    }
    case 1: {
      const lengths = ['abc', '-1', '1 2', '99999999999999999999', '5, 6', '0x10'];
      return {
        name: 'bad content-length',
        chunks: [`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: ${pick(random, lengths)}\r\n\r\n${body}`],
      };
    }
    case 2:
      return {
        name: 'bad chunked body',
        chunks: [`POST ${path} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n${body}\r\n0\r\n\r\n`],
      };
    case 3: {
      const methods = ['GE T', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'FOO', 'POST'];
      return {
        name: 'method/path',
        chunks: [
          `${pick(random, methods)} ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
        ],
      };
    }
    case 4:
      return {
        name: 'huge header',
        chunks: [`GET ${path} HTTP/1.1\r\nHost: x\r\nX-Fill: ${'z'.repeat(17_000 + int(random, 20_000))}\r\n\r\n`],
      };
    default: {
      const lines = [
        'GET\r\n\r\n',
        'HTTP/1.1 200 OK\r\n\r\n',
        '\u0000\u0001\u0002\r\n\r\n',
        `GET ${path} HTTP/9.9\r\nHost: x\r\n\r\n`,
        'POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\nabc',
      ];
      return { name: 'garbage request line', chunks: [pick(random, lines)] };
    }
  }
}

function checkError(
  label: string,
  status: number,
  contentType: string | undefined,
  requestIdHeader: string | undefined,
  text: string,
): void {
  assert.ok(status >= 400 && status < 500, `${label}: status ${status} (${text.slice(0, 200)})`);
  assert.match(contentType ?? '', /^application\/json/, `${label}: content type`);
  const body = JSON.parse(text) as { error: Record<string, unknown> };
  assert.deepEqual(Object.keys(body.error).sort(), ['code', 'message', 'param', 'request_id', 'type'], label);
  assert.equal(typeof body.error.code, 'string', label);
  assert.equal(body.error.request_id, requestIdHeader, `${label}: request_id`);
}

async function inParallel<T>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const index = next++;
        await work(items[index] as T, index);
      }
    }),
  );
}

let node: SimulatedNode;
let gateway: TestGateway;

before(async () => {
  node = await startSimulator();
  gateway = await startTestGateway(`
admin_key: admin-fuzz-0123456789abcdef
http: { body_limit_bytes: ${BODY_LIMIT}, max_messages: ${MAX_MESSAGES}, max_choices: 8, headers_timeout_ms: 2000, body_idle_timeout_ms: 2000 }
nodes: [{ id: a, provider: openai, base_url: "${node.baseUrl}" }]
models: [{ id: m, reasoning: { default_effort: low }, routes: [{ node: a }] }]
keys: [{ key: ${API_KEY} }]
# The cases send hundreds of wrong keys from one address: what this suite checks is that each
# gets a 4xx in the spec format, not the failed-attempt limit (test/ops/failed-auth-limit.test.ts).
limits: { auth_failures_per_minute: 1000000 }
`);
});

after(async () => {
  await gateway?.close();
  await node?.close();
});

test(
  `fuzz: ${BODY_CASES} malformed and adversarial bodies each get a 4xx in the spec format (seed ${SEED})`,
  { timeout: 60_000 },
  async () => {
    const random = mulberry32(SEED);
    const cases = Array.from({ length: BODY_CASES }, (_, index) => bodyCase(random, index));
    const pool = new Pool(new URL(gateway.baseUrl).origin, { connections: CONCURRENCY });
    const statuses = new Map<number, number>();
    const started = Date.now();
    try {
      await inParallel(cases, CONCURRENCY, async (fuzzCase, index) => {
        const response = await pool.request({
          method: 'POST',
          path: '/v1/chat/completions',
          headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json', ...fuzzCase.headers },
          body: fuzzCase.body,
          signal: AbortSignal.timeout(10_000),
        });
        const text = await response.body.text();
        const header = (name: string) => {
          const value = response.headers[name];
          return Array.isArray(value) ? value[0] : value;
        };
        checkError(
          `case ${index} (${fuzzCase.name})`,
          response.statusCode,
          header('content-type'),
          header('x-request-id'),
          text,
        );
        statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
      });
    } finally {
      await pool.close();
    }
    assert.equal(node.stats().requests, 0, 'no fuzz case reached the node');
    assert.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype untouched');
    for (const status of [400, 401, 413])
      assert.ok((statuses.get(status) ?? 0) > 0, `some ${status}s among ${JSON.stringify([...statuses])}`);
    assert.ok(Date.now() - started < 45_000);
  },
);

/** Numeric fields of the chat request and values outside every one's range (JSON text, not JS numbers). */
const NUMERIC_FIELDS = [
  'temperature',
  'top_p',
  'n',
  'max_tokens',
  'max_completion_tokens',
  'presence_penalty',
  'frequency_penalty',
  'top_logprobs',
  'seed',
];
const HUGE_NUMBERS = ['1e400', '-1e400', '1e20'];
const MEGABYTE = 1024 * 1024;

/** Bounded inputs (PRODUCT.md decision 22): deep nesting, numbers that overflow or leave their range, megabyte strings. */
function boundCases(): Case[] {
  const valid = JSON.stringify(VALID).slice(0, -1);
  const deep = (inArray: boolean) => nested(10_000, inArray);
  const cases: Case[] = [];
  for (const inArray of [true, false]) {
    const kind = inArray ? 'arrays' : 'objects';
    cases.push(
      { name: `10,000 levels of ${kind} in an unknown field`, body: `${valid},"extra":${deep(inArray)}}` },
      {
        name: `10,000 levels of ${kind} in an unknown message field`,
        body: `{"model":"m","messages":[{"role":"user","content":"x","meta":${deep(inArray)}}]}`,
      },
      {
        name: `10,000 levels of ${kind} in content`,
        body: `{"model":"m","messages":[{"role":"user","content":${deep(inArray)}}]}`,
      },
      { name: `10,000 levels of ${kind} in stop`, body: `${valid},"stop":${deep(inArray)}}` },
      { name: `10,000 levels of ${kind} as the body`, body: deep(inArray) },
    );
  }
  for (const field of NUMERIC_FIELDS) {
    for (const value of HUGE_NUMBERS) cases.push({ name: `${field}: ${value}`, body: `${valid},"${field}":${value}}` });
  }
  for (const value of HUGE_NUMBERS) {
    cases.push({ name: `logit_bias value ${value}`, body: `${valid},"logit_bias":{"11":${value}}}` });
    cases.push({ name: `reasoning.max_tokens ${value}`, body: `${valid},"reasoning":{"max_tokens":${value}}}` });
  }
  cases.push({ name: 'unknown field 1e400', body: `${valid},"vendor":{"top_k":1e400}}` });
  cases.push({ name: '1 MB model name', body: JSON.stringify({ ...VALID, model: 'm'.repeat(MEGABYTE) }) });
  cases.push({ name: '1 MB unknown field name (1e400)', body: `${valid},"${'f'.repeat(MEGABYTE)}":1e400}` });
  cases.push({
    name: '1 MB unknown field name in logit_bias',
    body: `${valid},"logit_bias":{"${'f'.repeat(MEGABYTE)}":1000}}`,
  });
  return cases;
}

test(
  'fuzz: deep nesting, huge numbers and megabyte strings get a short 400/404; the node is never counted as failed',
  { timeout: 120_000 },
  async () => {
    const boundNode = await startSimulator();
    const boundGateway = await startTestGateway(`
health: { failure_threshold: 1 }
nodes: [{ id: a, provider: openai, base_url: "${boundNode.baseUrl}" }]
models: [{ id: m, reasoning: { default_effort: low }, routes: [{ node: a }] }]
keys: [{ key: ${API_KEY} }]
`);
    const pool = new Pool(new URL(boundGateway.baseUrl).origin, { connections: 4 });
    try {
      const cases = boundCases();
      // Twice over: with failure_threshold 1, any case counted against the node would eject it.
      await inParallel([...cases, ...cases], 4, async (fuzzCase, index) => {
        const response = await pool.request({
          method: 'POST',
          path: '/v1/chat/completions',
          headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
          body: fuzzCase.body,
          signal: AbortSignal.timeout(30_000),
        });
        const text = await response.body.text();
        const header = (name: string) => {
          const value = response.headers[name];
          return Array.isArray(value) ? value[0] : value;
        };
        const label = `bound case ${index} (${fuzzCase.name})`;
        checkError(label, response.statusCode, header('content-type'), header('x-request-id'), text);
        assert.ok([400, 404].includes(response.statusCode), `${label}: status ${response.statusCode}`);
        assert.ok(text.length < 2048, `${label}: an error body of ${text.length} characters`);
      });
      assert.equal(boundNode.stats().requests, 0, 'no bound case reached the node');
      const lines = boundGateway.logs().filter((entry) => entry.msg === 'request');
      for (const line of lines)
        assert.ok(JSON.stringify(line).length < 4096, `a log line of ${JSON.stringify(line).length} characters`);
      for (let round = 0; round < 3; round++) {
        const reply = await pool.request({
          method: 'POST',
          path: '/v1/chat/completions',
          headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify(VALID),
        });
        await reply.body.text();
        assert.equal(reply.statusCode, 200, 'the model still answers');
      }
    } finally {
      await pool.close();
      await boundGateway.close();
      await boundNode.close();
    }
  },
);

test(
  `fuzz: ${RAW_CASES} malformed HTTP heads each get a 4xx in the spec format; the gateway serves afterwards`,
  { timeout: 60_000 },
  async () => {
    const random = mulberry32(SEED ^ 0x5bd1e995);
    const cases = Array.from({ length: RAW_CASES }, (_, index) => rawCase(random, index));
    await inParallel(cases, CONCURRENCY, async (fuzzCase, index) => {
      const response: RawResponse = await rawExchange(gateway.port, fuzzCase.chunks, { timeoutMs: 5000 });
      checkError(
        `raw case ${index} (${fuzzCase.name}: ${JSON.stringify(fuzzCase.chunks[0]?.slice(0, 80))})`,
        response.status,
        response.headers['content-type'],
        response.headers['x-request-id'],
        response.body,
      );
    });

    const healthy = await fetch(`${new URL(gateway.baseUrl).origin}/healthz`);
    assert.equal(healthy.status, 200);
    const reply = await postChat(gateway.baseUrl, API_KEY, VALID);
    assert.equal(reply.status, 200, 'a valid request still succeeds');
    await reply.arrayBuffer();
  },
);
