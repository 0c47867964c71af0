import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';

// Every message a client reads in Russian (or any language but English) is in the error
// registry, src/errors/ (codes.ts, reasons.ts): code elsewhere names a code or a reason,
// and never writes a sentence of its own. Cyrillic anywhere else in src/ means one did.

const SRC = join(import.meta.dirname, '../../src');
const ERRORS = join(SRC, 'errors');

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return path === ERRORS ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

test('no file of src/ outside src/errors/ holds Cyrillic: localized text lives in the registry', () => {
  const files = sourceFiles(SRC);
  assert.ok(files.length > 100, 'the scan finds the sources');
  const offending = files.flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, index) => (/[\u0400-\u04FF]/.test(line) ? [`${relative(SRC, file)}:${index + 1}`] : [])),
  );
  assert.deepEqual(offending, [], 'lines with Cyrillic outside src/errors/');
});
