import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { test } from 'node:test';

// The layers of docs/architecture.md: value imports between top-level folders of src/
// point one way. Type-only imports vanish at run time and may point anywhere.

const SRC = join(import.meta.dirname, '../../src');

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts')
      ? [path]
      : [];
  });
}

/** The top-level folder of a file under src/ ('.' for files directly in src/). */
function folderOf(file: string): string {
  const parts = relative(SRC, file).split('/');
  return parts.length > 1 ? (parts[0] as string) : '.';
}

/** Relative specifiers a file imports (or re-exports) values from. */
function valueImports(text: string): string[] {
  const specifiers: string[] = [];
  const statement = /^(import|export)\s+(type\s+)?([^;]*?)\s+from\s+'(\.[^']+)'/gms;
  for (const match of text.matchAll(statement)) {
    if (match[2] !== undefined) continue;
    const clause = match[3] ?? '';
    const braces = /\{([^}]*)\}/.exec(clause);
    const outsideBraces = braces === null ? clause : clause.replace(braces[0], '');
    const named =
      braces === null
        ? []
        : (braces[1] ?? '')
            .split(',')
            .map((name) => name.trim())
            .filter((name) => name !== '');
    const onlyTypes =
      outsideBraces.replace(/[\s,]/g, '') === '' && named.length > 0 && named.every((name) => name.startsWith('type '));
    if (!onlyTypes) specifiers.push(match[4] as string);
  }
  for (const match of text.matchAll(/^import\s+'(\.[^']+)'/gm)) specifiers.push(match[1] as string);
  return specifiers;
}

/** Folder → folder it imports values from → one file that does. */
function valueEdges(): Map<string, Map<string, string>> {
  const edges = new Map<string, Map<string, string>>();
  for (const file of sourceFiles(SRC)) {
    const from = folderOf(file);
    for (const specifier of valueImports(readFileSync(file, 'utf8'))) {
      const to = folderOf(normalize(join(dirname(file), specifier)));
      if (to === from) continue;
      const targets = edges.get(from) ?? new Map<string, string>();
      targets.set(to, relative(SRC, file));
      edges.set(from, targets);
    }
  }
  return edges;
}

test('no two folders of src/ import values from each other', () => {
  const edges = valueEdges();
  assert.ok((edges.get('pipeline')?.size ?? 0) > 3, "the scan finds the pipeline's imports");
  const both: string[] = [];
  for (const [from, targets] of edges) {
    for (const [to, example] of targets) {
      const back = edges.get(to)?.get(from);
      if (back !== undefined && from < to) both.push(`${from} ⇄ ${to} (${example} → ${to}, ${back} → ${from})`);
    }
  }
  assert.deepEqual(both, [], 'folder pairs that import values both ways');
});

test('loading the configuration imports no domain module: only its own folder and the schema validation', () => {
  const targets = [...(valueEdges().get('config') ?? new Map<string, string>())];
  assert.deepEqual(
    targets.filter(([to]) => to !== 'validation').map(([to, file]) => `${file} → ${to}`),
    [],
  );
});
