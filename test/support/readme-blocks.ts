import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The repository's README.md. */
export const README_PATH = join(import.meta.dirname, '..', '..', 'README.md');

/**
 * The text of the fenced block that follows `<!-- test: NAME -->` in README.md, so a test
 * runs exactly what a reader copies. Throws when the marker or its block is missing.
 */
export function readmeBlock(name: string): string {
  const text = readFileSync(README_PATH, 'utf8');
  const marker = `<!-- test: ${name} -->`;
  const at = text.indexOf(marker);
  if (at === -1) throw new Error(`README.md has no ${marker}`);
  const block = /^```[\w-]*\n([\s\S]*?)^```$/m.exec(text.slice(at + marker.length));
  if (block?.[1] === undefined) throw new Error(`README.md has no fenced block after ${marker}`);
  return block[1];
}

/** A shell block split into its setup (`export …` lines, comments) and its commands, one a line. */
export function shellSteps(block: string): { setup: string; commands: string[] } {
  const lines = block.split('\n').filter((line) => line.trim() !== '');
  const isSetup = (line: string) => /^\s*(?:export\s|#)/.test(line);
  return { setup: lines.filter(isSetup).join('\n'), commands: lines.filter((line) => !isSetup(line)) };
}

/** What a shell script printed and how it ended. */
export interface ShellRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `script` with bash in `cwd` and only `env`; after `timeoutMs` its whole process group is killed. */
export function runShell(script: string, cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<ShellRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
