#!/usr/bin/env node
// Builds the operator console (console/src, Preact + uPlot) into dist/console: one script
// and one stylesheet with a hash of their content in their names, and the page naming them.
// The gateway serves dist/console under /console. Run by `npm run build`; the console's
// tests run it when the bundle is missing or older than its sources. Prints the sizes.
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const ROOT = resolve(import.meta.dirname, '..');
const OUT = join(ROOT, 'dist/console');
const ASSETS = join(OUT, 'assets');

rmSync(OUT, { recursive: true, force: true });
mkdirSync(ASSETS, { recursive: true });
const result = await build({
  entryPoints: [join(ROOT, 'console/src/main.tsx')],
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2022', 'chrome110', 'firefox110', 'safari16'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  outdir: ASSETS,
  entryNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
});
const outputs = Object.keys(result.metafile.outputs).map((file) => resolve(ROOT, file));
const script = outputs.find((file) => file.endsWith('.js'));
const style = outputs.find((file) => file.endsWith('.css'));
if (script === undefined) throw new Error('build-console: esbuild wrote no script');
const page = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="color-scheme" content="light" />
    <link rel="icon" href="data:," />
    <title>Switchyard console</title>
    ${style === undefined ? '' : `<link rel="stylesheet" href="/console/assets/${basename(style)}" />`}
    <script type="module" src="/console/assets/${basename(script)}"></script>
  </head>
  <body>
    <div id="app"></div>
    <noscript>The Switchyard console needs JavaScript.</noscript>
  </body>
</html>
`;
writeFileSync(join(OUT, 'index.html'), page);

let total = 0;
let totalGzip = 0;
for (const name of [...readdirSync(ASSETS).map((file) => join('assets', file)), 'index.html']) {
  const size = statSync(join(OUT, name)).size;
  const gzip = gzipSync(readFileSync(join(OUT, name)), { level: 9 }).length;
  total += size;
  totalGzip += gzip;
  console.log(`console: ${name} ${(size / 1024).toFixed(1)} KiB (${(gzip / 1024).toFixed(1)} KiB gzip)`);
}
console.log(`console: total ${(total / 1024).toFixed(1)} KiB (${(totalGzip / 1024).toFixed(1)} KiB gzip) in ${OUT}`);
