// `npm start` runs this before `serve` (prestart): it runs `npm run build` only when the
// build is missing or older than its sources, instead of rebuilding (~15 s) on every start.
// The build's time is kept in dist/.build-stamp (the time the build started, so a source
// saved during a build makes the next start build again). `npm run build` always builds.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** What the build reads: a change to any of these makes it stale. */
export const BUILD_INPUTS = [
  'src',
  'console/src',
  'scripts',
  'tsconfig.json',
  'tsconfig.build.json',
  'package.json',
  'package-lock.json',
];
/** Written after a successful build, with the time the build started. */
export const BUILD_STAMP = join('dist', '.build-stamp');
/** What the build writes that `serve` needs: without it the build is missing whatever the stamp says. */
const BUILD_OUTPUT = join('dist', 'cli.js');

/** The latest modification time (ms) of a file, or of the files under a directory; 0 when there is none. */
function newestUnder(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestUnder(join(path, entry)));
  return newest;
}

/** Whether the build under `root` is there and newer than every input. */
export function buildIsCurrent(root: string): boolean {
  const stamp = join(root, BUILD_STAMP);
  if (!existsSync(stamp) || !existsSync(join(root, BUILD_OUTPUT))) return false;
  const built = statSync(stamp).mtimeMs;
  return BUILD_INPUTS.every((input) => newestUnder(join(root, input)) <= built);
}

/** Records a successful build that started at `startedMs`. */
export function stampBuild(root: string, startedMs: number): void {
  const stamp = join(root, BUILD_STAMP);
  writeFileSync(stamp, `${new Date(startedMs).toISOString()}\n`);
  utimesSync(stamp, startedMs / 1000, startedMs / 1000);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const root = resolve(import.meta.dirname, '..');
  if (buildIsCurrent(root)) {
    process.stderr.write('dist/ is up to date with its sources; not rebuilding (`npm run build` rebuilds)\n');
  } else {
    const started = Date.now();
    const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
    if (build.status !== 0) process.exit(build.status ?? 1);
    stampBuild(root, started);
  }
}
