import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { SimulatedNode } from '../../src/simulator/simulated-node.js';
import { claudeCodeBinary, runClaudeCode } from '../support/claude-code.js';
import { startSimulator, startTestGateway, type TestGateway } from '../support/test-gateway.js';

/**
 * The real agent (issue 19): Claude Code in print mode, pointed at Switchyard, asked about a
 * file, finishes a turn that runs its Read tool — through an Anthropic-protocol node
 * (native pass-through) and through a chat-completions node (translated). The simulator's
 * script calls Read for the file, then answers with the tool's result.
 */

const KEY = 'sk-swy-claude-code-0001';
const RUN_TIMEOUT_MS = 120_000;
const SECRET_LINE = 'The night train leaves from platform 9 at 23:40.';

describe('Claude Code through Switchyard', { timeout: 8 * 60_000 }, () => {
  let binary: string;
  let work: string;
  let file: string;
  let claude: SimulatedNode;
  let chatNode: SimulatedNode;
  let gateway: TestGateway;

  before(async () => {
    binary = await claudeCodeBinary();
    work = mkdtempSync(join(tmpdir(), 'switchyard-claude-code-'));
    file = join(work, 'notes.txt');
    writeFileSync(file, `${SECRET_LINE}\n`);
    const scripts = {
      '*': [
        {
          when: { tools_offered: true, last_role: 'user' as const },
          call: { tool: 'Read', arguments: { file_path: file } },
        },
        // Claude Code may end its request with a system message (the list of agent types).
        {
          when: { tools_offered: true, last_role: 'system' as const },
          call: { tool: 'Read', arguments: { file_path: file } },
        },
        { when: { last_role: 'tool' as const }, answer: 'The file says: {{tool_result}}' },
      ],
    };
    claude = await startSimulator({ protocol: 'anthropic', apiKey: 'sk-ant-node', scripts });
    chatNode = await startSimulator({ scripts });
    gateway = await startTestGateway(`
nodes:
  - { id: claude, provider: anthropic, base_url: "${claude.baseUrl}", api_key: sk-ant-node }
  - { id: chat-node, provider: openai, base_url: "${chatNode.baseUrl}" }
models:
  - { id: claude-native, max_output_tokens: 32000, reasoning: { default_effort: low, style: level }, routes: [{ node: claude, model: claude-sonnet-4-6 }] }
  - { id: claude-on-chat, max_output_tokens: 32000, reasoning: { default_effort: low }, routes: [{ node: chat-node, model: qwen3 }] }
keys:
  - { key: ${KEY} }
`);
  });

  after(async () => {
    await gateway?.close();
    await claude?.close();
    await chatNode?.close();
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  for (const model of ['claude-native', 'claude-on-chat']) {
    test(`${model}: claude -p reads the file with its Read tool and answers from it`, async () => {
      const home = mkdtempSync(join(tmpdir(), 'switchyard-claude-home-'));
      try {
        const before = gateway.logs().length;
        const result = await runClaudeCode({
          binary,
          prompt: 'What does notes.txt in this directory say? Read it.',
          baseUrl: gateway.origin,
          apiKey: KEY,
          model,
          cwd: work,
          home,
          timeoutMs: RUN_TIMEOUT_MS,
        });
        assert.equal(result.code, 0, `claude exited ${String(result.code)}: ${result.stderr}\n${result.stdout}`);
        assert.match(result.stdout, /The file says:/, `stdout: ${result.stdout}\nstderr: ${result.stderr}`);
        assert.ok(result.stdout.includes(SECRET_LINE), `the answer quotes the file: ${result.stdout}`);
        const lines = gateway
          .logs()
          .slice(before)
          .filter((line) => line.msg === 'request' && line.path?.toString().startsWith('/v1/messages'));
        assert.ok(lines.length >= 2, 'a tool call turn and an answer turn went through the gateway');
        assert.ok(lines.every((line) => line.front_door === 'messages'));
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    });
  }
});
