import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { AGENT_VERSIONS } from './agent-versions.js';
import { installedVersion } from './installed-version.js';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Where the Claude Code CLI is installed for the end-to-end tests: a cache directory outside
 * the repository (it is a 240 MB native binary, not a dependency of Switchyard);
 * `SWITCHYARD_CLAUDE_CODE_DIR` overrides it.
 */
export const CLAUDE_CODE_DIR =
  process.env.SWITCHYARD_CLAUDE_CODE_DIR ?? join(homedir(), '.cache', 'switchyard', 'claude-code');
/** The version the tests run: pinned in agent-versions.ts (a newer version is a deliberate bump). */
export const CLAUDE_CODE_VERSION = AGENT_VERSIONS.claudeCode;
/** Longest the npm install may take on a fresh machine. */
const INSTALL_TIMEOUT_MS = 200_000;

/** The CLI's binary: the platform package's own binary, or the wrapper's bin (which the postinstall replaces with it). */
function binaryIn(directory: string): string | undefined {
  const modules = join(directory, 'node_modules', '@anthropic-ai');
  const platform = `claude-code-${process.platform}-${process.arch}`;
  for (const candidate of [join(modules, platform, 'claude'), join(directory, 'node_modules', '.bin', 'claude')])
    if (existsSync(candidate)) return candidate;
  return undefined;
}

/**
 * The path of the `claude` binary, installing `@anthropic-ai/claude-code@CLAUDE_CODE_VERSION`
 * from the npm registry into CLAUDE_CODE_DIR first when that version is not there (so a
 * fresh CI machine runs the test rather than skipping it).
 */
export async function claudeCodeBinary(): Promise<string> {
  const present = binaryIn(CLAUDE_CODE_DIR);
  const version = installedVersion(CLAUDE_CODE_DIR, '@anthropic-ai/claude-code');
  if (present !== undefined && version === CLAUDE_CODE_VERSION) return present;
  mkdirSync(CLAUDE_CODE_DIR, { recursive: true });
  const spec = `@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}`;
  await run('npm', ['install', '--prefix', CLAUDE_CODE_DIR, '--no-audit', '--no-fund', spec], {
    timeout: INSTALL_TIMEOUT_MS,
    maxBuffer: 16 * 1024 * 1024,
  });
  const installed = binaryIn(CLAUDE_CODE_DIR);
  if (installed === undefined)
    throw new Error(`npm installed @anthropic-ai/claude-code into ${CLAUDE_CODE_DIR} without its binary`);
  return installed;
}

/** What `claude -p` printed and how it ended. */
export interface ClaudeCodeRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `claude -p <prompt>` in `cwd` against a gateway (`ANTHROPIC_BASE_URL`), with a gateway
 * key, its home and configuration in `home` (a scratch directory), and everything that
 * would reach Anthropic's own servers turned off (telemetry, error reporting, updates).
 */
export async function runClaudeCode(options: {
  readonly binary: string;
  readonly prompt: string;
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly model: string;
  readonly cwd: string;
  readonly home: string;
  readonly timeoutMs: number;
}): Promise<ClaudeCodeRun> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: options.home,
    XDG_CONFIG_HOME: join(options.home, '.config'),
    CLAUDE_CONFIG_DIR: join(options.home, '.claude'),
    ANTHROPIC_BASE_URL: options.baseUrl,
    ANTHROPIC_API_KEY: options.apiKey,
    ANTHROPIC_MODEL: options.model,
    ANTHROPIC_DEFAULT_HAIKU_MODEL: options.model,
    ANTHROPIC_SMALL_FAST_MODEL: options.model,
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_BUG_COMMAND: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    CLAUDE_CODE_MAX_RETRIES: '0',
    CI: '1',
  };
  const child = spawn(
    options.binary,
    ['-p', options.prompt, '--model', options.model, '--allowedTools', 'Read', '--output-format', 'text'],
    // No stdin: print mode would wait for piped input.
    { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'], timeout: options.timeoutMs },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', (exit) => resolve(exit)));
  return { code, stdout, stderr };
}
