import { spawn, type ChildProcess } from 'node:child_process';

/** A gateway started as its own process with the CLI (`switchyard serve`), as an operator runs it. */
export interface GatewayProcess {
  readonly child: ChildProcess;
  /** `http://127.0.0.1:<port>/v1` */
  readonly baseUrl: string;
  readonly origin: string;
  /** Everything the process wrote to stderr so far (its log). */
  readonly log: () => string;
}

const CLI = ['--import', 'tsx', 'src/cli.ts'];

/** Starts `switchyard serve --config <file>` on a free port; resolves once it listens. */
export function startGatewayProcess(configFile: string, env: NodeJS.ProcessEnv = {}): Promise<GatewayProcess> {
  const child = spawn(process.execPath, [...CLI, 'serve', '--config', configFile, '--port', '0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...env },
  });
  let text = '';
  child.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner within 30 s: ${text}`)), 30_000);
    const onData = () => {
      const match = /listening on (http:\/\/\S+\/v1)/.exec(text);
      if (!match?.[1]) return;
      clearTimeout(timer);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      resolve({ child, baseUrl: match[1], origin: new URL(match[1]).origin, log: () => text });
    };
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code}: ${text}`));
    };
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
  });
}

/** Sends `signal` and waits for the process to exit. */
export async function stopGatewayProcess(gateway: GatewayProcess | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (gateway === undefined || gateway.child.exitCode !== null || gateway.child.signalCode !== null) return;
  const exited = new Promise((resolve) => gateway.child.once('exit', resolve));
  gateway.child.kill(signal);
  await exited;
}

/** Polls `probe` until it returns true or `timeoutMs` passes; returns the milliseconds it took, or undefined. */
export async function waitFor(probe: () => Promise<boolean> | boolean, timeoutMs: number, everyMs = 20): Promise<number | undefined> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (await probe()) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return undefined;
}
