#!/usr/bin/env node
// node bench/heap-snapshot-summary.mjs BASELINE.heapsnapshot HELD.heapsnapshot STREAMS [ROWS]
//
// What grew between two V8 heap snapshots, per held stream: objects grouped by kind (node
// type and constructor or function name; strings and code by type alone), their count and
// self size in the second snapshot less the first, divided by STREAMS, largest first. Take
// the snapshots with `node bench/streams-10k.mjs --heap-snapshot` (baseline and plateau).
import { readFileSync } from 'node:fs';

const [baselinePath, heldPath, streamsText, rowsText = '40'] = process.argv.slice(2);
if (!heldPath || !streamsText) {
  console.error('usage: heap-snapshot-summary.mjs BASELINE HELD STREAMS [ROWS]');
  process.exit(1);
}
const STREAMS = Number(streamsText);

/** Sums self size and count per kind of object in one snapshot. */
function summarize(path) {
  const snapshot = JSON.parse(readFileSync(path, 'utf8'));
  const fields = snapshot.snapshot.meta.node_fields;
  const types = snapshot.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const { nodes, strings } = snapshot;
  const kinds = new Map();
  let total = 0;
  for (let index = 0; index < nodes.length; index += width) {
    const type = types[nodes[index + typeAt]];
    const size = nodes[index + sizeAt];
    total += size;
    // Strings and code are grouped by type only: their names are their contents.
    const named = type === 'object' || type === 'closure' || type === 'native' || type === 'hidden';
    const name = named ? strings[nodes[index + nameAt]].slice(0, 60) : '';
    const kind = `${type}${name ? ` ${name}` : ''}`;
    const entry = kinds.get(kind) ?? { count: 0, size: 0 };
    entry.count++;
    entry.size += size;
    kinds.set(kind, entry);
  }
  return { kinds, total };
}

const before = summarize(baselinePath);
const after = summarize(heldPath);
const rows = [];
for (const [kind, entry] of after.kinds) {
  const base = before.kinds.get(kind) ?? { count: 0, size: 0 };
  rows.push({ kind, count: (entry.count - base.count) / STREAMS, bytes: (entry.size - base.size) / STREAMS });
}
rows.sort((left, right) => right.bytes - left.bytes);
console.log(
  `self size grown: ${((after.total - before.total) / 2 ** 20).toFixed(1)} MiB, ${((after.total - before.total) / STREAMS / 1024).toFixed(2)} KiB per stream (${STREAMS})`,
);
console.log('bytes/stream  count/stream  kind');
for (const row of rows.slice(0, Number(rowsText))) {
  console.log(`${row.bytes.toFixed(0).padStart(12)}  ${row.count.toFixed(2).padStart(12)}  ${row.kind}`);
}
