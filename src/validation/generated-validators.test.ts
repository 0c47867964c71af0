import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { generateValidators } from '../../scripts/generate-validators.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

test('the generated validators match the current schemas (else: npm run generate:validators)', () => {
  for (const [file, source] of generateValidators()) {
    let committed: string | undefined;
    try {
      committed = readFileSync(`${ROOT}${file}`, 'utf8');
    } catch {
      committed = undefined;
    }
    assert.ok(committed === source, `${file} is out of date with its schema: run npm run generate:validators`);
  }
});

test('the generated validators load neither TypeBox nor Ajv itself, only its runtime helpers', () => {
  for (const [file, source] of generateValidators()) {
    const valueImports = [...source.matchAll(/^import (?!type )[^\n]* from '([^']+)';$/gm)].map((match) => match[1]);
    assert.ok(
      valueImports.every((path) => path?.startsWith('ajv/dist/runtime/')),
      `${file}: ${valueImports.join(', ')}`,
    );
    assert.doesNotMatch(source, /require\(/, file);
  }
});
