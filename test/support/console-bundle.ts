import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const BUNDLE_PAGE = join(ROOT, 'dist/console/index.html');

function newestSource(directory: string): number {
  return Math.max(
    0,
    ...readdirSync(directory, { withFileTypes: true }).map((entry) => {
      const path = join(directory, entry.name);
      return entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs;
    }),
  );
}

/** Builds the console into dist/console (as `npm run build` does) when it is missing or older than its sources. */
export function ensureConsoleBundle(): void {
  const built = existsSync(BUNDLE_PAGE) ? statSync(BUNDLE_PAGE).mtimeMs : 0;
  const sources = Math.max(
    newestSource(join(ROOT, 'console/src')),
    statSync(join(ROOT, 'scripts/build-console.mjs')).mtimeMs,
  );
  if (built > sources) return;
  const result = spawnSync(process.execPath, [join(ROOT, 'scripts/build-console.mjs')], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`building the console failed:\n${result.stdout}\n${result.stderr}`);
}
