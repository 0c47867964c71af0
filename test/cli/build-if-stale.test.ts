import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { BUILD_STAMP, buildIsCurrent, stampBuild } from '../../scripts/build-if-stale.js';

// Issue 33 item 5: `npm start` rebuilt (~15 s) on every start. It now builds only when the
// build is missing or a source is newer than the last build's start.

/** Writes `path` under `root` with its modification time at `seconds`. */
function file(root: string, path: string, seconds: number): void {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), 'x');
  utimesSync(join(root, path), seconds, seconds);
}

test('the build is current only when it exists and started after every source changed', () => {
  const root = mkdtempSync(join(tmpdir(), 'switchyard-build-'));
  file(root, 'src/cli.ts', 1000);
  file(root, 'console/src/main.tsx', 1000);
  file(root, 'package.json', 1000);
  assert.equal(buildIsCurrent(root), false, 'never built');

  file(root, 'dist/cli.js', 2000);
  stampBuild(root, 2000_000);
  assert.equal(buildIsCurrent(root), true, 'built after the last change');

  file(root, 'console/src/pages/keys.tsx', 3000);
  assert.equal(buildIsCurrent(root), false, 'a console source changed after the build');
  stampBuild(root, 3000_000);
  assert.equal(buildIsCurrent(root), true);

  file(root, 'tsconfig.build.json', 4000);
  assert.equal(buildIsCurrent(root), false, 'the build settings changed');
  stampBuild(root, 4000_000);
  file(root, BUILD_STAMP, 5000);
  file(root, 'dist/cli.js', 5000);
  assert.equal(buildIsCurrent(root), true);
});
