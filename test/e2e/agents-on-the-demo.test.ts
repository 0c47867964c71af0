import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { claudeCodeBinary } from '../support/claude-code.js';
import { CODEX_BIN_DIR, ensureCodex } from '../support/codex-cli.js';
import { startGatewayProcess, stopGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { README_PATH, readmeBlock, runShell, shellSteps, type ShellRun } from '../support/readme-blocks.js';

// Issue 33 items 1 and 2: the README's blocks for Claude Code and Codex CLI, run as written
// against the built-in demo (what `npm start` serves: no configuration, no scripts). The
// only change is the demo's address: the README says 127.0.0.1:8080, the test's demo listens
// on a free port. Each agent must finish "say hi" without calling a tool and a turn that
// reads README.md (in a scratch copy of the clone's) and answers with what it says.

const DEMO_ADDRESS = 'http://127.0.0.1:8080';
const RUN_TIMEOUT_MS = 120_000;
/** The README's first line: the read turn's answer quotes it. */
const README_FIRST_LINE = '# Switchyard';

/** The request lines the demo logged so far. */
function requestLines(demo: GatewayProcess): Array<Record<string, unknown>> {
  return demo
    .stdout()
    .split('\n')
    .filter((line) => line.includes('"msg":"request"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The requests the demo logged so far. */
function requestsIn(demo: GatewayProcess): number {
  return requestLines(demo).length;
}

/** A scratch clone-like directory (README.md in it) and a scratch home for the agent's own files. */
function scratch(label: string): { work: string; home: string } {
  const root = mkdtempSync(join(tmpdir(), `switchyard-${label}-`));
  const work = join(root, 'clone');
  mkdirSync(work);
  copyFileSync(README_PATH, join(work, 'README.md'));
  const home = join(root, 'home');
  mkdirSync(home);
  return { work, home };
}

function detail(run: ShellRun): string {
  return `exit ${String(run.code)}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr.slice(-4000)}`;
}

/** Runs each command of a README shell block (after the block's own `export` lines) and checks both turns. */
async function runBothTurns(
  demo: GatewayProcess,
  block: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  toolRan: (run: ShellRun) => boolean,
): Promise<void> {
  const { setup, commands } = shellSteps(block.replaceAll(DEMO_ADDRESS, demo.origin));
  assert.equal(commands.length, 2, `the block has a "say hi" command and a read command:\n${block}`);
  const [hi, read] = commands as [string, string];
  assert.match(hi, /"say hi"/);

  const before = requestsIn(demo);
  const greeted = await runShell(`${setup}\n${hi}`, cwd, env, RUN_TIMEOUT_MS);
  assert.equal(greeted.code, 0, detail(greeted));
  assert.ok(greeted.stdout.trim().length > 0, `an answer is printed\n${detail(greeted)}`);
  assert.ok(!toolRan(greeted), `"say hi" runs no tool\n${detail(greeted)}`);
  // The attack: the demo called the first tool offered (Claude Code's Agent) and its subagents
  // called it again, 51 requests until killed. A turn that needs no tool takes one model request
  // (plus, for Claude Code, at most a side request or two).
  assert.ok(requestsIn(demo) - before <= 3, `"say hi" took ${requestsIn(demo) - before} requests`);

  const answered = await runShell(`${setup}\n${read}`, cwd, env, RUN_TIMEOUT_MS);
  assert.equal(answered.code, 0, detail(answered));
  assert.ok(toolRan(answered), `the read turn runs a tool\n${detail(answered)}`);
  assert.ok(answered.stdout.includes(README_FIRST_LINE), `the answer quotes README.md\n${detail(answered)}`);
}

describe("the README's agent blocks against the built-in demo", { timeout: 12 * 60_000 }, () => {
  let demo: GatewayProcess;
  const dirs: string[] = [];

  before(async () => {
    demo = await startGatewayProcess(undefined, { SWITCHYARD_STORE: 'memory' });
  });

  after(async () => {
    await stopGatewayProcess(demo);
    for (const dir of dirs) rmSync(dirname(dir), { recursive: true, force: true });
  });

  test('Claude Code: "say hi", then reading README.md with its Read tool', async () => {
    const binary = await claudeCodeBinary();
    const { work, home } = scratch('claude-demo');
    dirs.push(work);
    // `claude` on the PATH as a user has it; a scratch HOME keeps the user's settings out.
    const bin = join(home, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'claude'), `#!/bin/sh\nexec "${binary}" "$@"\n`, { mode: 0o755 });
    const env = { PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: home };
    const before = requestsIn(demo);
    // Claude Code prints only the answer: the tool's output shows up as the demo quoting it.
    await runBothTurns(demo, readmeBlock('claude-code-demo'), work, env, (run) =>
      run.stdout.includes('The tool returned'),
    );
    // Issue 31: no model chosen (only the base URL and the key): Claude Code sends its own
    // claude-… ids, which the demo's aliases answer with its models.
    const block = readmeBlock('claude-code-demo');
    assert.doesNotMatch(block, /ANTHROPIC_MODEL|ANTHROPIC_DEFAULT_|--model/, 'the block chooses no model');
    const messages = requestLines(demo)
      .slice(before)
      .filter((line) => String(line.path).startsWith('/v1/messages') && !String(line.path).includes('count_tokens'));
    assert.ok(messages.length > 0, 'Claude Code called /v1/messages');
    for (const line of messages) {
      assert.match(String(line.model), /^claude-/, JSON.stringify(line));
      assert.ok(line.model_served === 'demo-reasoner' || line.model_served === 'demo-chat', JSON.stringify(line));
      assert.equal(line.status, 200, JSON.stringify(line));
    }
  });

  test('Codex CLI: the README\'s config.toml, "say hi", then reading README.md with a shell command', async () => {
    await ensureCodex();
    const { work, home } = scratch('codex-demo');
    dirs.push(work);
    mkdirSync(join(home, '.codex'));
    writeFileSync(
      join(home, '.codex', 'config.toml'),
      readmeBlock('codex-demo-config').replaceAll(DEMO_ADDRESS, demo.origin),
    );
    const env = { PATH: `${CODEX_BIN_DIR}:${process.env.PATH ?? ''}`, HOME: home };
    // `codex exec` shows each command it runs on stderr ("exec" and the command line).
    await runBothTurns(demo, readmeBlock('codex-demo'), work, env, (run) => /^exec$/m.test(run.stderr));
  });
});
