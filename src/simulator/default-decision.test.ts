import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openaiControls } from './openai-controls.js';
import { planCompletion, type CompletionPlan } from './plan-completion.js';
import { readUserRequest, withoutTaggedBlocks } from './user-request.js';

// Issue 33 item 1: with no script, the simulator behaves like a model an agent can work
// with. Tools and messages are shaped like those Claude Code and Codex CLI send (after the
// gateway's translation to chat completions).

const STRING = { type: 'string' };
const CLAUDE_TOOLS = [
  { name: 'Agent', required: ['description', 'prompt'], properties: { description: STRING, prompt: STRING } },
  { name: 'Bash', required: ['command'], properties: { command: STRING, timeout: { type: 'number' } } },
  { name: 'Read', required: ['file_path'], properties: { file_path: STRING, offset: { type: 'number' } } },
  { name: 'Write', required: ['file_path', 'content'], properties: { file_path: STRING, content: STRING } },
].map(({ name, required, properties }) => ({
  type: 'function',
  function: { name, parameters: { type: 'object', required, properties } },
}));
const CODEX_TOOLS = [
  { name: 'exec_command', required: ['cmd'], properties: { cmd: STRING, login: { type: 'boolean' } } },
  { name: 'view_image', required: ['path'], properties: { path: STRING } },
].map(({ name, required, properties }) => ({
  type: 'function',
  function: { name, parameters: { type: 'object', required, properties } },
}));

const REMINDER = '<system-reminder>\nContext: see README.md and src/main.ts.\n</system-reminder>';

function userTurn(text: string): Record<string, unknown> {
  return {
    role: 'user',
    content: [
      { type: 'text', text: REMINDER },
      { type: 'text', text },
    ],
  };
}

function plan(messages: readonly Record<string, unknown>[], extra: Record<string, unknown> = {}): CompletionPlan {
  const body = { model: 'demo-chat', messages, tools: CLAUDE_TOOLS, ...extra };
  return planCompletion(
    { model: 'demo-chat', messages, maxTokens: undefined, reasoningEffort: undefined },
    openaiControls(body, messages),
  );
}

function args(result: CompletionPlan): Record<string, unknown> {
  return JSON.parse(result.toolCalls[0]?.arguments ?? '{}') as Record<string, unknown>;
}

test('"say hi" with an agent\'s tools offered is answered in text, no tool called', () => {
  for (const tools of [CLAUDE_TOOLS, CODEX_TOOLS]) {
    const result = plan([{ role: 'system', content: 'You are an agent.' }, userTurn('say hi')], { tools });
    assert.deepEqual(result.toolCalls, []);
    assert.equal(result.finishReason, 'stop');
    assert.ok(result.contentTokens.length > 0);
  }
});

test("a file named in the user's words is read with the reading tool, or cat through the shell tool", () => {
  const claude = plan([userTurn('What does notes.txt in this directory say? Read it.')]);
  assert.equal(claude.toolCalls[0]?.name, 'Read');
  assert.equal(args(claude).file_path, 'notes.txt');
  assert.equal(claude.finishReason, 'tool_calls');

  const codex = plan([userTurn('What does notes.txt say?')], { tools: CODEX_TOOLS });
  assert.equal(codex.toolCalls[0]?.name, 'exec_command');
  assert.equal(args(codex).cmd, 'cat notes.txt');
});

test('a tool named in the words is called when it can be satisfied; files in context blocks do not count', () => {
  const run = plan([userTurn('Use Bash to run `ls -la` please')]);
  assert.equal(run.toolCalls[0]?.name, 'Bash');
  assert.equal(args(run).command, 'ls -la');
  // Write is named but no file is: its required path cannot be filled, so no call.
  assert.deepEqual(plan([userTurn('Write a haiku about trains')]).toolCalls, []);
  // The reminder names README.md and src/main.ts; the user's own words name no file.
  assert.deepEqual(plan([userTurn('What is in this directory?')]).toolCalls, []);
});

test('after a tool result (even with a trailing system message) the answer quotes it, no second call', () => {
  const first = plan([userTurn('Read notes.txt')]);
  const call = first.toolCalls[0];
  assert.ok(call !== undefined);
  const result = plan([
    userTurn('Read notes.txt'),
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }],
    },
    { role: 'tool', tool_call_id: call.id, content: '1\tThe night train leaves at 23:40.' },
    { role: 'system', content: 'Available agent types: general-purpose.' },
  ]);
  assert.deepEqual(result.toolCalls, []);
  assert.equal(result.contentTokens.join(''), 'The tool returned:\n1\tThe night train leaves at 23:40.');
});

test('tool_choice required still calls: the requested tool, else the first callable one', () => {
  const named = plan([userTurn('Read notes.txt')], { tool_choice: 'required' });
  assert.equal(named.toolCalls[0]?.name, 'Read');
  const first = plan([userTurn('say hi')], { tool_choice: 'required' });
  assert.equal(first.toolCalls[0]?.name, 'Agent');
  const forced = plan([userTurn('say hi')], { tool_choice: { type: 'function', function: { name: 'Bash' } } });
  assert.equal(forced.toolCalls[0]?.name, 'Bash');
});

test("the user's words: tagged blocks removed (unclosed tags kept), files and quoted commands found", () => {
  assert.equal(withoutTaggedBlocks('<a>x</a> hi <b>y</b>'), 'hi');
  assert.equal(withoutTaggedBlocks('a <b> c'), 'a <b> c');
  assert.equal(withoutTaggedBlocks(`${'<a>'.repeat(10_000)} hi`), `${'<a>'.repeat(10_000)} hi`);
  assert.deepEqual(readUserRequest('Summarise "docs/notes.md", e.g. briefly.'), {
    words: 'Summarise "docs/notes.md", e.g. briefly.',
    file: 'docs/notes.md',
    command: undefined,
  });
  assert.equal(readUserRequest('say hi').file, undefined);
  assert.equal(readUserRequest('see https://example.com/a.html').file, undefined);
  assert.equal(readUserRequest('please run `git status` now').command, 'git status');
});
