import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';

// Everything under src/ except the colocated unit tests (*.test.ts, left out of the build)
// is shipped in dist/. So every such file must be part of the gateway: reachable by imports
// from the CLI and the library entry point. A helper only tests use belongs in test/support/.

const ROOT = resolve(import.meta.dirname, '../..');
const SRC = join(ROOT, 'src');
const ENTRY_POINTS = ['src/cli.ts', 'src/main.ts'];

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|js)$/.test(entry.name) && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts')
      ? [path]
      : [];
  });
}

test(
  'every file under src/ that the build ships is reachable from the CLI or main.ts: no test-only code in src/ or dist/',
  { timeout: 120_000 },
  () => {
    const parsed = ts.getParsedCommandLineOfConfigFile(
      join(ROOT, 'tsconfig.build.json'),
      {},
      { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
    );
    assert.ok(parsed, 'tsconfig.build.json parses');
    const program = ts.createProgram({
      rootNames: ENTRY_POINTS.map((file) => join(ROOT, file)),
      options: { ...parsed.options, noEmit: true, allowJs: true },
    });
    const reached = new Set(program.getSourceFiles().map((file) => resolve(file.fileName)));
    const unreached = sourceFiles(SRC)
      .filter((file) => !reached.has(file) && !reached.has(file.replace(/\.js$/, '.d.ts')))
      .map((file) => relative(ROOT, file));
    assert.deepEqual(
      unreached,
      [],
      'files under src/ nothing in the gateway imports (move test helpers to test/support/)',
    );
  },
);
