import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { gzipSync } from 'node:zlib';

/** One file of the console's bundle, ready to send. */
export interface ConsoleAsset {
  readonly body: Buffer;
  /** The body gzipped, when that is smaller. */
  readonly gzipped: Buffer | undefined;
  readonly contentType: string;
  readonly cacheControl: string;
}

/** The built console: its page and its content-hashed scripts and styles by file name. */
export interface ConsoleBundle {
  readonly index: ConsoleAsset;
  readonly assets: ReadonlyMap<string, ConsoleAsset>;
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** Where `npm run build` puts the console: dist/console, next to dist/http (built) or from src/http (tsx). */
export function consoleBundleDirectory(): string | undefined {
  const candidates = [join(import.meta.dirname, '../../console'), join(import.meta.dirname, '../../../dist/console')];
  return candidates.find((directory) => existsSync(join(directory, 'index.html')));
}

function asset(body: Buffer, name: string, cacheControl: string): ConsoleAsset {
  const gzipped = gzipSync(body, { level: 9 });
  return {
    body,
    gzipped: gzipped.length < body.length ? gzipped : undefined,
    contentType: CONTENT_TYPES[extname(name)] ?? 'application/octet-stream',
    cacheControl,
  };
}

/**
 * Reads the built console into memory (a few hundred KiB): the page is revalidated on
 * every load (no-cache), the assets it names carry a hash of their content in their names
 * and are cached for a year (immutable).
 */
export function loadConsoleBundle(directory: string): ConsoleBundle {
  const assets = new Map<string, ConsoleAsset>();
  const assetDirectory = join(directory, 'assets');
  for (const name of existsSync(assetDirectory) ? readdirSync(assetDirectory) : []) {
    if (name.endsWith('.map')) continue;
    assets.set(name, asset(readFileSync(join(assetDirectory, name)), name, 'public, max-age=31536000, immutable'));
  }
  return { index: asset(readFileSync(join(directory, 'index.html')), 'index.html', 'no-cache'), assets };
}
