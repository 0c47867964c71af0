import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import OpenAI from 'openai';
import { runCli, startGatewayProcess, stopGatewayProcess } from '../support/gateway-process.js';
import { waitFor } from '../support/wait-for.js';

function writeConfig(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'switchyard-cli-')), 'gateway.yaml');
  writeFileSync(file, text);
  return file;
}

test('a bad config stops serve with one line naming the file, the path and the problem, and a non-zero exit', async () => {
  const file = writeConfig(
    'nodes:\n  - { id: a, provider: openai, base_url: "http://x/v1" }\nmodels:\n  - { id: m, routes: [{ node: nowhere }] }\n',
  );
  const result = await runCli(['serve', '--config', file]);
  assert.notEqual(result.code, 0);
  assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
  assert.match(
    result.stderr,
    new RegExp(
      `${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} at models\\[0\\]\\.routes\\[0\\]\\.node: unknown node "nowhere"`,
    ),
  );
  assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
});

test('SWITCHYARD_CONFIG is read when --config is absent; a missing file is reported plainly', async () => {
  const result = await runCli(['serve'], { SWITCHYARD_CONFIG: '/nonexistent/switchyard.yaml' });
  assert.notEqual(result.code, 0);
  assert.match(result.stderr, /\/nonexistent\/switchyard\.yaml: cannot read the file \(ENOENT\)/);
});

test('check validates a file without starting anything', async () => {
  const file = writeConfig(
    'nodes:\n  - { id: a, provider: openai, base_url: "http://x/v1" }\nmodels:\n  - { id: m, routes: [{ node: a }] }\n',
  );
  const result = await runCli(['check', '--config', file]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /valid \(1 node, 1 model, 0 keys\)/);
});

test('with no config the demo starts, prints its URL and key, and streams a reasoning answer to the openai client', async (t) => {
  const served = await startGatewayProcess(undefined, { PORT: '0', SWITCHYARD_CONFIG: '', SWITCHYARD_STORE: 'memory' });
  t.after(() => stopGatewayProcess(served));
  const banner = served.log();
  const baseURL = /listening on (http:\/\/\S+\/v1)/.exec(banner)?.[1];
  const apiKey = /Demo API key: (\S+)/.exec(banner)?.[1];
  assert.ok(baseURL && apiKey, banner);
  const client = new OpenAI({ baseURL, apiKey, maxRetries: 0 });
  const stream = await client.chat.completions.create({
    model: 'demo-reasoner',
    stream: true,
    messages: [{ role: 'user', content: 'Say hello' }],
    max_completion_tokens: 80,
  });
  let reasoning = '';
  let content = '';
  let usage: OpenAI.CompletionUsage | undefined | null;
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta as { content?: string | null; reasoning_content?: string } | undefined;
    if (delta?.reasoning_content) {
      assert.equal(content, '', 'reasoning arrives before the answer');
      reasoning += delta.reasoning_content;
    }
    if (delta?.content) content += delta.content;
    if (chunk.usage) usage = chunk.usage;
  }
  assert.ok(reasoning.length > 0, 'the demo reasoner reasons (default effort medium)');
  assert.ok(content.length > 0);
  assert.ok(usage && usage.total_tokens === usage.prompt_tokens + usage.completion_tokens);
});

test('SIGHUP reloads the file: a new model is served; a bad file is rejected with a log line and the old config keeps serving', async (t) => {
  const KEY = 'sk-reload-test-0123456789';
  const configFor = (models: string[]) =>
    `listen: { host: 127.0.0.1, port: 0 }
store: memory
nodes:
  - { id: sim, provider: simulated }
models:
${models.map((id) => `  - { id: ${id}, routes: [{ node: sim }] }`).join('\n')}
keys: [{ key: ${KEY} }]
`;
  const file = writeConfig(configFor(['first-model']));
  const served = await startGatewayProcess(file);
  t.after(() => stopGatewayProcess(served));
  const { child, baseUrl: baseURL } = served;
  const stdout = served.stdout;
  const client = new OpenAI({ baseURL, apiKey: KEY, maxRetries: 0 });
  const ask = (model: string) => client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] });
  const until = (predicate: () => boolean) =>
    waitFor(predicate, 5000, { everyMs: 50, what: () => `the log line; stdout so far:\n${stdout()}` });

  await ask('first-model');
  await assert.rejects(ask('second-model'), (error: unknown) => error instanceof OpenAI.NotFoundError);

  writeFileSync(file, configFor(['first-model', 'second-model']));
  child.kill('SIGHUP');
  await until(() => stdout().includes('configuration reloaded'));
  const reply = await ask('second-model');
  assert.equal(reply.model, 'second-model');

  writeFileSync(file, 'models: [oops');
  child.kill('SIGHUP');
  await until(() => stdout().includes('configuration reload rejected'));
  assert.match(stdout(), /YAML syntax/);
  await ask('second-model');
  assert.equal(child.exitCode, null, 'still running');
});
