// Issue 30: the agent end-to-end tests installed Claude Code and Codex unpinned. The versions
// are pinned in test/support/agent-versions.ts, stated in test/README.md, and nothing else
// installs or runs an agent from the registry (npx, npm install) around the pinned helpers.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { AGENT_VERSIONS } from '../support/agent-versions.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const PACKAGES = ['@anthropic-ai/claude-code', '@openai/codex'];
/** The two helpers that install the pinned versions. */
const INSTALLERS = new Set(['test/support/claude-code.ts', 'test/support/codex-cli.ts']);

function filesUnder(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    if (name === 'node_modules' || name === 'test-output') return [];
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('the coding agents the tests run', () => {
  it('are pinned to exact versions, which test/README.md states', () => {
    const readme = readFileSync(join(ROOT, 'test', 'README.md'), 'utf8');
    for (const version of Object.values(AGENT_VERSIONS)) {
      assert.match(version, /^\d+\.\d+\.\d+$/, 'an exact version, no range');
      assert.ok(readme.includes(`**${version}**`), `test/README.md names ${version}`);
    }
    assert.match(readme, /newer version is a deliberate bump/);
  });

  it('are installed only by the pinned helpers', () => {
    const offenders = ['test', 'bench', 'scripts', '.ci']
      .flatMap((folder) => filesUnder(join(ROOT, folder)))
      .map((file) => relative(ROOT, file))
      .filter((file) => !INSTALLERS.has(file) && file !== 'test/docs/agent-versions.test.ts')
      .filter((file) => {
        const text = readFileSync(join(ROOT, file), 'utf8');
        return PACKAGES.some((name) =>
          new RegExp(`(npx|npm (install|i|exec)|pnpm dlx|yarn dlx)[^\\n]*${name}`).test(text),
        );
      });
    assert.deepEqual(offenders, []);
  });
});
