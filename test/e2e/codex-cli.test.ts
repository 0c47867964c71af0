import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CODEX_BIN, CODEX_INSTALL_TIMEOUT_MS, ensureCodex } from '../support/codex-cli.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

// Issue 20, done-when: the real agent. Codex CLI (`@openai/codex`, installed from the npm
// registry into a cache directory outside the repository, not as a dependency) runs
// `codex exec` against Switchyard with `wire_api = "responses"`, and finishes a turn that
// runs a shell tool call through the gateway to a simulated node speaking chat completions
// (scripted: call Codex's shell tool `exec_command`, then answer with the tool's output).

const API_KEY = 'sk-e2e-codex-cli-0123456789abcdef';
const RUN_TIMEOUT_MS = 90_000;
const MARKER = 'switchyard-codex-e2e';

/** Runs `codex exec --json`; resolves with its exit code and output once it exits (killed at the time limit). */
function codexExec(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(CODEX_BIN, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A CODEX_HOME whose config.toml points Codex at the gateway (`model`: the model line, if any). */
function codexHome(prefix: string, baseUrl: string, model: string | undefined): string {
  const home = mkdtempSync(join(tmpdir(), prefix));
  writeFileSync(
    join(home, 'config.toml'),
    `${model === undefined ? '' : `model = "${model}"\n`}model_provider = "switchyard"

[model_providers.switchyard]
name = "Switchyard"
base_url = "${baseUrl}"
env_key = "SWITCHYARD_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

# Offline: no usage analytics, no update check.
[analytics]
enabled = false
`,
  );
  return home;
}

type CodexEvent = { type: string; item?: Record<string, unknown> };

/**
 * One `codex exec --json` turn asking for the marker command, in a new work folder of
 * `home`: its exit, its events and a detail for assertion messages; asserts that the
 * command ran and printed the marker, and that the turn completed with exit 0.
 */
async function runMarkerTurn(home: string): Promise<{ events: CodexEvent[]; detail: string }> {
  const work = join(home, 'work');
  mkdirSync(work);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    CODEX_HOME: home,
    SWITCHYARD_API_KEY: API_KEY,
    RUST_LOG: 'error',
    CODEX_DISABLE_UPDATE_CHECK: '1',
  };
  const run = await codexExec(
    [
      'exec',
      '--json',
      '--skip-git-repo-check',
      '--dangerously-bypass-approvals-and-sandbox',
      'Run the marker command.',
    ],
    env,
    work,
  );
  if (process.env.SWITCHYARD_CODEX_DEBUG === '1') process.stderr.write(`${run.stdout}\n${run.stderr}\n`);
  const detail = `exit ${String(run.code)}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr.slice(-4000)}`;
  const events = run.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as CodexEvent);
  const command = events.find((event) => event.type === 'item.completed' && event.item?.type === 'command_execution');
  assert.ok(command, `a shell command ran\n${detail}`);
  assert.match(String(command.item?.aggregated_output), new RegExp(`${MARKER}-42`), detail);
  assert.ok(
    events.some((event) => event.type === 'turn.completed'),
    detail,
  );
  assert.equal(run.code, 0, detail);
  return { events, detail };
}

describe('Codex CLI through Switchyard', () => {
  let gateway: TestGateway;
  let home: string;

  before(async () => {
    await ensureCodex();
    gateway = await startTestGateway(`
nodes:
  - id: sim-chat
    provider: simulated
    simulated:
      scripts:
        "*":
          - when: { tools_offered: true, last_role: user }
            call: { tool: "exec_command|shell", arguments: { cmd: "echo ${MARKER}-$((20+22))", command: ["echo", "${MARKER}-42"] } }
          - when: { last_role: tool }
            answer: "The command printed: {{tool_result}}"
models:
  - { id: sim-agent, routes: [{ node: sim-chat }] }
keys:
  - { key: ${API_KEY} }
`);
    home = codexHome('switchyard-codex-', gateway.baseUrl, 'sim-agent');
  });

  after(async () => {
    await gateway?.close();
    if (home !== undefined) rmSync(home, { recursive: true, force: true });
  });

  test(
    'codex exec finishes a turn that runs a shell tool call',
    { timeout: CODEX_INSTALL_TIMEOUT_MS + RUN_TIMEOUT_MS },
    async () => {
      const { events, detail } = await runMarkerTurn(home);
      const message = events.find((event) => event.type === 'item.completed' && event.item?.type === 'agent_message');
      assert.match(String(message?.item?.text), new RegExp(`The command printed: .*${MARKER}-42`, 's'), detail);
    },
  );
});

// Without a model in config.toml, Codex 0.171 asks for its own default slug (gpt-6…, which an
// alias answers) in "code mode": no top-level `tools`, its tools in an `additional_tools`
// input item, the shell reached through `exec`, a custom tool in the `functions` namespace
// whose input is JavaScript. The gateway answered 400 to the item; then it offered no tool.
describe('Codex CLI through Switchyard without a model chosen', () => {
  let gateway: TestGateway;
  let home: string;

  before(async () => {
    await ensureCodex();
    gateway = await startTestGateway(`
nodes:
  - id: sim-chat
    provider: simulated
    simulated:
      scripts:
        "*":
          - when: { tools_offered: true, last_role: user }
            call: { tool: "functions__exec", arguments: { input: "text(await tools.exec_command({cmd: 'echo ${MARKER}-42'}))" } }
          - when: { last_role: tool }
            answer: "The command printed: {{tool_result}}"
models:
  - { id: sim-agent, aliases: ["gpt-*", "codex-*"], routes: [{ node: sim-chat }] }
keys:
  - { key: ${API_KEY} }
`);
    home = codexHome('switchyard-codex-default-', gateway.baseUrl, undefined);
  });

  after(async () => {
    await gateway?.close();
    if (home !== undefined) rmSync(home, { recursive: true, force: true });
  });

  test(
    'codex exec runs a shell command through its code-mode exec tool, offered from additional_tools',
    { timeout: CODEX_INSTALL_TIMEOUT_MS + RUN_TIMEOUT_MS },
    async () => {
      const { detail } = await runMarkerTurn(home);
      const lines = gateway.logs().filter((line) => line.path === '/v1/responses');
      assert.ok(lines.length >= 2, detail);
      for (const line of lines) {
        assert.equal(line.status, 200, JSON.stringify(line));
        assert.match(String(line.model), /^(gpt|codex)-/, JSON.stringify(line));
      }
    },
  );
});
