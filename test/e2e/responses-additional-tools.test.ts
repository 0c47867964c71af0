import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

// Codex CLI sends its tools in an `additional_tools` input item (`role: "developer"`) and no
// top-level `tools`; the gateway answered 400 item_type_unsupported. OpenAI adds the item's
// tools to the offer, and so does the translation to a chat-protocol node.

const API_KEY = 'sk-e2e-additional-tools-0123456789';
const TIMEOUT = { timeout: 20_000 };

const WEATHER = {
  type: 'function',
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: false,
};
const DECLARED = { type: 'additional_tools', role: 'developer', tools: [WEATHER] };

describe('an additional_tools input item, as Codex CLI sends it', () => {
  let gateway: TestGateway;

  before(async () => {
    gateway = await startTestGateway(`
nodes:
  - id: sim
    provider: simulated
    simulated:
      scripts:
        "*":
          - when: { tools_offered: true, last_role: user }
            call: { tool: "get_weather", arguments: { city: "Oslo" } }
          - when: { last_role: tool }
            answer: "The weather: {{tool_result}}"
          - when: { last_role: user }
            answer: "No tools were offered."
  - id: sim-code-mode
    provider: simulated
    simulated:
      scripts:
        "*":
          - when: { tools_offered: true, last_role: user }
            call: { tool: "functions__exec", arguments: { input: "text('hi')" } }
          - when: { last_role: tool }
            answer: "exec said: {{tool_result}}"
models:
  - { id: agent, routes: [{ node: sim }] }
  - { id: code-mode, routes: [{ node: sim-code-mode }] }
keys:
  - { key: ${API_KEY} }
`);
  });

  after(async () => {
    await gateway?.close();
  });

  async function create(body: Record<string, unknown>): Promise<{ status: number; json: Record<string, unknown> }> {
    const response = await fetch(`${gateway.baseUrl}/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'agent', store: false, ...body }),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  }

  test('its tools are offered to the node: a two-turn tool loop, the item repeated on each turn', TIMEOUT, async () => {
    const input: unknown[] = [DECLARED, { type: 'message', role: 'user', content: 'Weather in Oslo?' }];
    const first = await create({ input });
    assert.equal(first.status, 200, JSON.stringify(first.json));
    const call = (first.json.output as Record<string, unknown>[]).find((item) => item.type === 'function_call');
    assert.ok(call !== undefined, JSON.stringify(first.json.output));
    assert.equal(call.name, 'get_weather');
    const second = await create({
      input: [...input, call, { type: 'function_call_output', call_id: call.call_id, output: 'fog' }],
    });
    assert.equal(second.status, 200, JSON.stringify(second.json));
    assert.equal(second.json.output_text ?? outputText(second.json), 'The weather: fog');
  });

  test(
    "Codex's code mode: a custom tool in a namespace is called back as a custom_tool_call with its namespace",
    TIMEOUT,
    async () => {
      const declared = {
        type: 'additional_tools',
        role: 'developer',
        tools: [
          { type: 'namespace', name: 'functions', tools: [{ type: 'custom', name: 'exec', description: 'Run' }] },
        ],
      };
      const input: unknown[] = [declared, { type: 'message', role: 'user', content: 'Run it.' }];
      const first = await create({ model: 'code-mode', input });
      assert.equal(first.status, 200, JSON.stringify(first.json));
      const call = (first.json.output as Record<string, unknown>[]).find((item) => item.type === 'custom_tool_call');
      assert.ok(call !== undefined, JSON.stringify(first.json.output));
      assert.equal(call.name, 'exec');
      assert.equal(call.namespace, 'functions');
      assert.equal(call.input, "text('hi')");
      const second = await create({
        model: 'code-mode',
        input: [...input, call, { type: 'custom_tool_call_output', call_id: call.call_id, output: 'hi' }],
      });
      assert.equal(second.status, 200, JSON.stringify(second.json));
      assert.equal(outputText(second.json), 'exec said: hi');
    },
  );

  test('a malformed item is a 400 naming it, in OpenAI shape', TIMEOUT, async () => {
    const { status, json } = await create({
      input: [
        { type: 'additional_tools', tools: 'x' },
        { type: 'message', role: 'user', content: 'hi' },
      ],
    });
    assert.equal(status, 400);
    assert.equal((json.error as Record<string, unknown>).param, 'input[0].tools');
  });
});

function outputText(response: Record<string, unknown>): string {
  return (response.output as Record<string, unknown>[])
    .filter((item) => item.type === 'message')
    .flatMap((item) => item.content as Record<string, unknown>[])
    .map((part) => String(part.text ?? ''))
    .join('');
}
