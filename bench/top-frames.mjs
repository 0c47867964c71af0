// Prints the 25 functions with the most self time in a V8 .cpuprofile.
import { readFileSync } from 'node:fs';

const profile = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const selfTime = new Map();
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const deltas = profile.timeDeltas;
let total = 0;
profile.samples.forEach((id, index) => {
  const node = byId.get(id);
  const frame = node.callFrame;
  const where = frame.url ? `${frame.url.replace(/^.*\/(node_modules|dist)\//, '$1/')}:${frame.lineNumber + 1}` : '';
  const key = `${frame.functionName || '(anonymous)'} ${where}`;
  const delta = deltas[index] ?? 0;
  total += delta;
  selfTime.set(key, (selfTime.get(key) ?? 0) + delta);
});
const rows = [...selfTime.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25);
for (const [key, time] of rows) console.log(`${((time / total) * 100).toFixed(1).padStart(5)}%  ${key}`);
