import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The version of `name` installed under `prefix` (`npm install --prefix`), or undefined when it is not there. */
export function installedVersion(prefix: string, name: string): string | undefined {
  try {
    const manifest: unknown = JSON.parse(readFileSync(join(prefix, 'node_modules', name, 'package.json'), 'utf8'));
    return typeof manifest === 'object' &&
      manifest !== null &&
      'version' in manifest &&
      typeof manifest.version === 'string'
      ? manifest.version
      : undefined;
  } catch {
    return undefined;
  }
}
