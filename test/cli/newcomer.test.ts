import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { CLI, scratchDirectory, startGatewayProcess, stopGatewayProcess } from '../support/gateway-process.js';

// Issue 18 item 9: what a newcomer hit on the command line.

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runCli(args: string[], cwd = scratchDirectory()): Promise<Finished> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...CLI, ...args], {
      cwd,
      env: process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

test("--help on a subcommand prints that command's usage and exits 0", { timeout: 60_000 }, async () => {
  const cases: Array<[string[], RegExp]> = [
    [['serve', '--help'], /switchyard serve \[--config FILE\]/],
    [['check', '-h'], /switchyard check --config FILE/],
    [['simulate', '--help'], /usage: switchyard simulate \[--port N\]/],
    [['keys', 'list', '--help'], /switchyard keys create --account ID/],
    [['usage', '--help'], /switchyard usage \[--key KEY\]/],
  ];
  for (const [args, usage] of cases) {
    const result = await runCli(args);
    assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stdout, usage, args.join(' '));
    assert.equal(result.stderr, '', args.join(' '));
  }
});

test('a misspelled top-level key is named, with the key it probably means', { timeout: 30_000 }, async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'switchyard-cli-')), 'gateway.yaml');
  writeFileSync(file, 'nodes:\n  - { id: a, provider: simulated }\nmodles:\n  - { id: m, routes: [{ node: a }] }\n');
  const result = await runCli(['check', '--config', file]);
  assert.equal(result.code, 2);
  assert.equal(
    result.stderr,
    `switchyard: invalid configuration ${file} at modles: is not a known field; did you mean "models"?\n`,
  );
});

test(
  'a store held by a running gateway is one line naming its process, not a stack trace',
  { timeout: 90_000 },
  async () => {
    const directory = scratchDirectory('store-busy');
    const file = join(directory, 'gateway.yaml');
    writeFileSync(
      file,
      `listen: { host: 127.0.0.1, port: 0 }
store: pglite:${join(directory, 'data')}
usage: { journal_dir: ${join(directory, 'journal')} }
nodes:
  - { id: a, provider: simulated }
models:
  - { id: m, routes: [{ node: a }] }
`,
    );
    const first = await startGatewayProcess(file);
    try {
      const second = await runCli(['serve', '--config', file, '--port', '0']);
      assert.equal(second.code, 1);
      const lines = second.stderr.trim().split('\n');
      assert.equal(lines.length, 1, second.stderr);
      assert.match(
        lines[0] ?? '',
        new RegExp(
          `^switchyard: the embedded store .*data is in use by process ${String(first.child.pid)}: stop that gateway`,
        ),
      );
      assert.doesNotMatch(second.stderr, /\n\s+at |fatal/, 'no stack trace');
    } finally {
      await stopGatewayProcess(first);
    }
  },
);
