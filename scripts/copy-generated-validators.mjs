// Part of `npm run build`: tsc does not emit the generated validators (plain .js with .d.ts
// types, see scripts/generate-validators.ts), so copy them into dist as they are.
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';

const from = new URL('../src/validation/generated/', import.meta.url);
const to = new URL('../dist/validation/generated/', import.meta.url);
mkdirSync(to, { recursive: true });
for (const name of readdirSync(from)) {
  if (name.endsWith('.js')) copyFileSync(new URL(name, from), new URL(name, to));
}
