import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { AGENT_VERSIONS } from './agent-versions.js';
import { installedVersion } from './installed-version.js';

/** Where Codex CLI is installed for the end-to-end tests (outside the repository); `SWITCHYARD_CODEX_DIR` overrides it. */
export const CODEX_DIR = process.env.SWITCHYARD_CODEX_DIR ?? join(homedir(), '.cache', 'switchyard', 'codex');
/** The directory holding the `codex` command. */
export const CODEX_BIN_DIR = join(CODEX_DIR, 'node_modules', '.bin');
export const CODEX_BIN = join(CODEX_BIN_DIR, 'codex');
/** The version the tests run: pinned in agent-versions.ts (a newer version is a deliberate bump). */
export const CODEX_VERSION = AGENT_VERSIONS.codex;
/** Longest the npm install may take on a fresh machine. */
export const CODEX_INSTALL_TIMEOUT_MS = 300_000;

/** Installs `@openai/codex@CODEX_VERSION` into CODEX_DIR when that version is not there yet (a fresh CI machine). */
export async function ensureCodex(): Promise<void> {
  if (existsSync(CODEX_BIN) && installedVersion(CODEX_DIR, '@openai/codex') === CODEX_VERSION) return;
  await promisify(execFile)(
    'npm',
    ['install', '--prefix', CODEX_DIR, '--no-audit', '--no-fund', `@openai/codex@${CODEX_VERSION}`],
    { timeout: CODEX_INSTALL_TIMEOUT_MS },
  );
  if (!existsSync(CODEX_BIN)) throw new Error(`npm installed @openai/codex into ${CODEX_DIR} without ${CODEX_BIN}`);
}
