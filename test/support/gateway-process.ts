import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * `node` arguments that run the CLI from any working directory (tsx by its resolved URL:
 * a bare `--import tsx` is resolved from the cwd, and children run in scratch ones).
 */
export const CLI = ['--import', import.meta.resolve('tsx'), join(import.meta.dirname, '../../src/cli.ts')];

/** A fresh directory for a child to run in, so defaults like `./.switchyard/data` land there and never in the checkout. */
export function scratchDirectory(label = 'cwd'): string {
  return mkdtempSync(join(tmpdir(), `switchyard-${label}-`));
}

/** A gateway running as `switchyard serve --config FILE` in a child process, as an operator runs it. */
export interface GatewayProcess {
  readonly child: ChildProcess;
  /** The OpenAI base URL, e.g. http://127.0.0.1:41234/v1. */
  readonly baseUrl: string;
  /** Scheme, host and port: where /admin/v1 lives. */
  readonly origin: string;
  /** Resolves with the exit code (null when a signal ended it). */
  readonly exited: Promise<number | null>;
  /** Everything the process wrote so far (its log lines on stdout, the banner on stderr). */
  readonly log: () => string;
  /** What it wrote on stdout only: its log lines. */
  readonly stdout: () => string;
}

/**
 * Starts `serve --config file --port 0` (no `file`: the built-in demo) and resolves once it
 * prints its banner, or fails after `startTimeoutMs` (creating a fresh embedded store took
 * 39 s on a loaded 2-core machine). It runs in `cwd`, by default a fresh scratch directory:
 * relative paths in the file and the defaults (store, journal) never reach the checkout. Its
 * output is read to the end, so a chatty process never blocks on a full pipe.
 */
export function startGatewayProcess(
  file: string | undefined,
  env: NodeJS.ProcessEnv = {},
  cwd = scratchDirectory(),
  startTimeoutMs = 120_000,
): Promise<GatewayProcess> {
  const args = file === undefined ? ['serve', '--port', '0'] : ['serve', '--config', file, '--port', '0'];
  const child = spawn(process.execPath, [...CLI, ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let text = '';
  let stdout = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the gateway did not start within ${startTimeoutMs} ms: ${text}`));
    }, startTimeoutMs);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the gateway exited with ${String(code)}: ${text}`));
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      stdout += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const url = /listening on (http:\/\/\S+\/v1)/.exec(text)?.[1];
      if (url !== undefined) {
        clearTimeout(timer);
        resolve({ child, baseUrl: url, origin: new URL(url).origin, exited, log: () => text, stdout: () => stdout });
      }
    });
  });
}

/** Stops a gateway process with `signal` (SIGTERM: graceful) and waits until it is gone. */
export async function stopGatewayProcess(
  gateway: GatewayProcess | undefined,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<number | null> {
  if (gateway === undefined) return null;
  if (gateway.child.exitCode === null && gateway.child.signalCode === null) gateway.child.kill(signal);
  return gateway.exited;
}

/** How a CLI command ended: its exit code and everything it wrote. */
export interface FinishedCli {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `switchyard ARGS` to its end in a scratch directory (killed after `timeoutMs`). */
export function runCli(args: readonly string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 30_000): Promise<FinishedCli> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...CLI, ...args], {
      cwd: scratchDirectory(),
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
