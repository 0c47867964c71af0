import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const BUNDLE_PAGE = join(ROOT, 'dist/console/index.html');
/** Held (a directory exists) while one test process builds, so parallel test files never build over each other. */
const LOCK = join(ROOT, 'dist/.console-build-lock');

function newestSource(directory: string): number {
  return Math.max(
    0,
    ...readdirSync(directory, { withFileTypes: true }).map((entry) => {
      const path = join(directory, entry.name);
      return entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs;
    }),
  );
}

function isCurrent(): boolean {
  const built = existsSync(BUNDLE_PAGE) ? statSync(BUNDLE_PAGE).mtimeMs : 0;
  const sources = Math.max(
    newestSource(join(ROOT, 'console/src')),
    statSync(join(ROOT, 'scripts/build-console.mjs')).mtimeMs,
  );
  return built > sources;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Builds the console into dist/console (as `npm run build` does) when it is missing or older than its sources. */
export async function ensureConsoleBundle(): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!isCurrent()) {
    mkdirSync(join(ROOT, 'dist'), { recursive: true });
    try {
      mkdirSync(LOCK);
    } catch {
      // Another test process is building; a lock older than a minute is left over from a crash.
      if (Date.now() > deadline) throw new Error(`the console build lock ${LOCK} is held for over a minute`);
      if (existsSync(LOCK) && Date.now() - statSync(LOCK).mtimeMs > 60_000)
        rmSync(LOCK, { recursive: true, force: true });
      await sleep(100);
      continue;
    }
    try {
      if (isCurrent()) return;
      const result = spawnSync(process.execPath, [join(ROOT, 'scripts/build-console.mjs')], { encoding: 'utf8' });
      if (result.status !== 0) throw new Error(`building the console failed:\n${result.stdout}\n${result.stderr}`);
    } finally {
      rmSync(LOCK, { recursive: true, force: true });
    }
  }
}
