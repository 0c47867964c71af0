// Issue 33 item 4: the documents pass their own check. Every YAML configuration in README.md
// and docs/*.md (a ```yaml block, or a `<<'YAML'` heredoc in a shell block) is run through
// `switchyard check`, as a reader would run it, unless an HTML comment right before it marks
// it partial and says why (`<!-- check: partial, the limits knobs only … -->`): a fragment
// meant to go into a whole file cannot pass on its own. Secrets in checked blocks come from
// environment variables (`${SWITCHYARD_ADMIN_KEY}`), never a literal a reader might keep;
// the test sets each such variable to a fresh random value. The CLI usage shown in
// docs/operations.md is the CLI's own, every table has a header row, and the README names
// nothing outside the clone.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { runCli } from '../support/gateway-process.js';

const ROOT = resolve(import.meta.dirname, '../..');
const PARTIAL = /<!-- check: partial, (.{10,}?) -->\s*$/;
/** `${NAME}` without a default: the reader sets it; the test sets it to a fresh random value. */
const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

interface YamlBlock {
  readonly where: string;
  readonly text: string;
  /** Why it is partial, when marked so. */
  readonly partial: string | undefined;
}

function documents(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(ROOT, 'docs', name));
  return [join(ROOT, 'README.md'), ...docs];
}

/** Every ```yaml block and every `<<'YAML'` heredoc of a document, with the partial mark before it. */
function yamlBlocks(file: string): YamlBlock[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const blocks: YamlBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? '';
    const fence = /^```ya?ml\s*$/.test(line);
    const heredoc = /<<\s*'?YAML'?\s*$/.test(line);
    if (!fence && !heredoc) continue;
    const end = lines.findIndex((candidate, at) => at > index && candidate === (fence ? '```' : 'YAML'));
    assert.ok(end > index, `${relative(ROOT, file)}:${index + 1}: the block is closed`);
    // The mark is on the line before the fence (a heredoc: before its shell block's fence).
    let opening = index;
    if (heredoc) while (opening > 0 && !(lines[opening] ?? '').startsWith('```')) opening--;
    blocks.push({
      where: `${relative(ROOT, file)}:${index + 1}`,
      text: lines.slice(index + 1, end).join('\n'),
      partial: PARTIAL.exec(lines.slice(Math.max(0, opening - 2), opening).join('\n'))?.[1],
    });
    index = end;
  }
  return blocks;
}

const BLOCKS = documents().flatMap(yamlBlocks);

describe('every configuration in the documents passes `switchyard check`', { timeout: 240_000 }, () => {
  test('the documents have configurations, and the reference is checked in full', () => {
    const checked = BLOCKS.filter((block) => block.partial === undefined).map((block) => block.where);
    assert.ok(
      checked.some((where) => where.startsWith('docs/configuration.md')),
      checked.join(', '),
    );
    assert.ok(
      checked.some((where) => where.startsWith('README.md')),
      checked.join(', '),
    );
    assert.ok(
      checked.some((where) => where.startsWith('docs/keys-and-money.md')),
      checked.join(', '),
    );
  });

  for (const block of BLOCKS) {
    if (block.partial !== undefined) {
      test(`${block.where}: partial (${block.partial}); not checked on its own`, () => undefined);
      continue;
    }
    test(`${block.where}: valid, with its secrets from the environment`, async () => {
      for (const match of block.text.matchAll(/^\s*-?\s*\{?\s*(admin_key|key|api_key):\s*([^,}\s#]+)/gm))
        assert.match(match[2] ?? '', /^"?\$\{/, `${block.where}: ${match[1] ?? ''} comes from an environment variable`);
      const env: NodeJS.ProcessEnv = {};
      for (const [, name] of block.text.matchAll(VARIABLE))
        if (name !== undefined) env[name] = `sk-${randomBytes(24).toString('hex')}`;
      const file = join(mkdtempSync(join(tmpdir(), 'switchyard-doc-yaml-')), 'switchyard.yaml');
      writeFileSync(file, block.text);
      const result = await runCli(['check', '--config', file], env);
      assert.equal(result.code, 0, `${block.where}:\n${result.stderr}`);
      assert.match(result.stdout, /: valid \(/);
    });
  }
});

test('the CLI usage in docs/operations.md is what `switchyard help` prints', async () => {
  const text = readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8');
  const shown = /```\n(Usage:\n[\s\S]*?)```/.exec(text)?.[1];
  assert.ok(shown !== undefined, 'docs/operations.md shows the usage');
  const help = await runCli(['help']);
  assert.equal(help.code, 0);
  assert.equal(shown, help.stdout);
});

test('every table in the documents has a header row above its separator', () => {
  for (const file of documents()) {
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, index) => {
      if (!/^\|(?:\s*:?-{3,}:?\s*\|)+\s*$/.test(line)) return;
      assert.match(lines[index - 1] ?? '', /^\|.*\|\s*$/, `${relative(ROOT, file)}:${index + 1}: a header row`);
    });
  }
});

test('README.md names no file outside the clone', () => {
  const text = readFileSync(join(ROOT, 'README.md'), 'utf8');
  assert.doesNotMatch(text, /\.\.\/shared/);
});
