#!/usr/bin/env node
// Runs every *.test.ts under src/ and test/ with node's test runner (TypeScript via tsx).
// Node 20's --test takes no globs, so the files are listed here. Extra arguments are
// passed on (e.g. `npm test -- --test-name-pattern=stream`). The time-out also bounds each
// test file as a whole: the store-outage test alone runs a 60 s outage.
//
// The tests run in a scratch working directory, never the checkout: a default path
// (`./.switchyard/data`, `./.switchyard/journal`) a test did not replace lands there, not
// in a store an operator's gateway or the demo opens, and the run fails naming it
// (PRODUCT decision 23). So `npm test` also passes while the demo runs in the checkout.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

function findTests(directory) {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : findTests(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const files = ['src', 'test']
  .flatMap(findTests)
  .sort()
  .map((file) => resolve(file));
if (files.length === 0) {
  console.error('run-tests: no test files found');
  process.exit(1);
}
const scratch = mkdtempSync(join(tmpdir(), 'switchyard-tests-cwd-'));
const result = spawnSync(
  process.execPath,
  // tsx by its resolved URL: a bare `--import tsx` is resolved from the working directory.
  ['--import', import.meta.resolve('tsx'), '--test', '--test-timeout=240000', ...process.argv.slice(2), ...files],
  { stdio: 'inherit', cwd: scratch },
);
const leftovers = readdirSync(scratch);
rmSync(scratch, { recursive: true, force: true });
if (leftovers.length > 0) {
  console.error(
    `run-tests: tests wrote ${leftovers.join(', ')} into their working directory: a test used a default path instead of a temporary one`,
  );
  process.exit(1);
}
process.exit(result.status ?? 1);
