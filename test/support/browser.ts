import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`), or `$CHROMIUM_PATH`: no browser is downloaded. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Why browser tests cannot run here; undefined when they can. With CI=true a missing browser is a failure, not a skip. */
export function browserSkipReason(): string | undefined {
  if (existsSync(CHROMIUM_PATH)) return undefined;
  const what = `no Chromium at ${CHROMIUM_PATH} (apt-get install -y chromium, or set CHROMIUM_PATH)`;
  if (process.env.CI === 'true') throw new Error(`${what}. CI=true: the browser tests must run.`);
  process.stderr.write(`\n${'!'.repeat(100)}\n!!! SKIPPED browser tests: ${what}\n${'!'.repeat(100)}\n\n`);
  return `SKIPPED: ${what}`;
}

/** Headless Chromium driven by playwright-core. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    timeout: 30_000,
    // Containers often run as root without user namespaces; /dev/shm may be small.
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  });
}

/** Where a test file saves its screenshots: test-output/<name> in the checkout (gitignored), or `$SWITCHYARD_TEST_OUTPUT/<name>`. */
export function screenshotDirectory(name: string): string {
  const root = process.env.SWITCHYARD_TEST_OUTPUT ?? resolve(import.meta.dirname, '../../test-output');
  const directory = join(root, name);
  mkdirSync(directory, { recursive: true });
  return directory;
}
