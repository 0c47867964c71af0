import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import type { SimulatedNode } from '../../src/simulator/simulated-node.js';
import { startSimulator, startTestGateway, type TestGateway } from '../support/test-gateway.js';

// PRODUCT.md decision 18: the streaming loop of OpenAI's own documentation
// (`chunk.choices[0].delta.content`) runs to the end on every node protocol. A client that
// did not ask for `stream_options.include_usage` gets the usage on the last chunk that
// carries a finish reason; one that asked gets OpenAI's separate `choices: []` chunk.

const TIMEOUT = { timeout: 30_000 };
const KEY = 'sk-usage-shape-0123456789abcdef';
const PROTOCOLS = ['openai', 'anthropic', 'gemini'] as const;
const MESSAGES = [{ role: 'user' as const, content: 'Name the three kinds of railway switches.' }];

/** openai-python's documented loop, with only the standard library: IndexError on a chunk without choices. */
const PYTHON_NAIVE_LOOP = `
import json, sys, urllib.request
request = urllib.request.Request(sys.argv[1] + '/chat/completions', method='POST', data=json.dumps({
  'model': sys.argv[2], 'stream': True, 'messages': [{'role': 'user', 'content': 'Hi'}]}).encode(),
  headers={'authorization': 'Bearer ' + sys.argv[3], 'content-type': 'application/json'})
text = ''
for line in urllib.request.urlopen(request):
    line = line.decode().strip()
    if not line.startswith('data: ') or line == 'data: [DONE]':
        continue
    chunk = json.loads(line[6:])
    text += chunk['choices'][0]['delta'].get('content') or ''
print(len(text))
`;

describe('usage chunks never break a streaming loop', () => {
  const nodes: SimulatedNode[] = [];
  let gateway: TestGateway;
  let client: OpenAI;

  before(async () => {
    for (const protocol of PROTOCOLS) nodes.push(await startSimulator({ protocol }));
    gateway = await startTestGateway(`
nodes:
${PROTOCOLS.map((protocol, index) => `  - { id: ${protocol}-node, provider: ${protocol}, base_url: "${nodes[index]?.baseUrl}" }`).join('\n')}
models:
${PROTOCOLS.map((protocol) => `  - { id: m-${protocol}, routes: [{ node: ${protocol}-node }] }`).join('\n')}
keys:
  - { key: ${KEY} }
`);
    client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: KEY, maxRetries: 0 });
  });

  after(async () => {
    await gateway?.close();
    await Promise.all(nodes.map((node) => node.close()));
  });

  for (const protocol of PROTOCOLS) {
    test(
      `${protocol} node: the documented loop runs to the end; the usage rides on the finish chunk`,
      TIMEOUT,
      async () => {
        const stream = await client.chat.completions.create({
          model: `m-${protocol}`,
          stream: true,
          messages: MESSAGES,
        });
        let text = '';
        let last: OpenAI.Chat.Completions.ChatCompletionChunk | undefined;
        for await (const chunk of stream) {
          text += chunk.choices[0]?.delta.content ?? '';
          assert.ok(chunk.choices.length > 0, 'every chunk has a choice');
          last = chunk;
        }
        assert.ok(text.length > 0);
        assert.ok(last?.usage && last.usage.total_tokens > 0, 'the last chunk carries the usage');
        assert.ok(last?.choices[0]?.finish_reason, 'the last chunk carries the finish reason');
      },
    );

    test(`${protocol} node: with include_usage, OpenAI's separate usage chunk comes last`, TIMEOUT, async () => {
      const stream = await client.chat.completions.create({
        model: `m-${protocol}`,
        stream: true,
        stream_options: { include_usage: true },
        messages: MESSAGES,
      });
      const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
      for await (const chunk of stream) chunks.push(chunk);
      const last = chunks.at(-1);
      assert.deepEqual(last?.choices, []);
      assert.ok(last?.usage && last.usage.total_tokens > 0);
      assert.equal(chunks.filter((chunk) => chunk.choices.length === 0).length, 1, 'one usage chunk');
    });

    test(`${protocol} node: openai-python's documented loop (standard library) runs to the end`, TIMEOUT, async () => {
      // (The gateway runs in this process: the child is awaited, never waited for synchronously.)
      const { stdout } = await promisify(execFile)(
        'python3',
        ['-c', PYTHON_NAIVE_LOOP, gateway.baseUrl, `m-${protocol}`, KEY],
        { timeout: 20_000 },
      );
      assert.ok(Number(stdout.trim()) > 0, stdout);
    });
  }
});
