#!/usr/bin/env node
// Runs every *.test.ts under src/ and test/ with node's test runner (TypeScript via tsx).
// Node 20's --test takes no globs, so the files are listed here. Extra arguments are
// passed on (e.g. `npm test -- --test-name-pattern=stream`). The time-out also bounds each
// test file as a whole: the store-outage test alone runs a 60 s outage.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

function findTests(directory) {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : findTests(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const files = ['src', 'test'].flatMap(findTests).sort();
if (files.length === 0) {
  console.error('run-tests: no test files found');
  process.exit(1);
}
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-timeout=240000', ...process.argv.slice(2), ...files],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
