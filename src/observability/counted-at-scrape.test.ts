import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import { CountedAtScrape } from './counted-at-scrape.js';

function counter() {
  const registry = new Registry();
  const counted = new CountedAtScrape({
    name: 'things_total',
    help: 'Things.',
    labelNames: ['kind', 'node'],
    registers: [registry],
  });
  return { registry, counted };
}

test('counts reach the scrape, summed per label set; a series shows only once counted', async () => {
  const { registry, counted } = counter();
  const a = counted.series('a', () => ({ kind: 'a', node: 'n1' }));
  counted.series('b', () => ({ kind: 'b', node: 'n1' }));
  a.inc();
  a.inc(2.5);
  assert.equal(
    counted.series('a', () => assert.fail('bound once')),
    a,
    'the same series for the same key',
  );
  const text = await registry.metrics();
  assert.match(text, /^things_total\{kind="a",node="n1"\} 3\.5$/m);
  assert.doesNotMatch(text, /kind="b"/);
  a.inc();
  assert.match(await registry.metrics(), /^things_total\{kind="a",node="n1"\} 4\.5$/m, 'counted on after a scrape');
  assert.match(
    await registry.metrics(),
    /^things_total\{kind="a",node="n1"\} 4\.5$/m,
    'a scrape adds nothing by itself',
  );
});

test('a negative, NaN or infinite amount is ignored; a reset starts the counter over', async () => {
  const { registry, counted } = counter();
  const a = counted.series('a', () => ({ kind: 'a', node: 'n1' }));
  a.inc(-1);
  a.inc(Number.NaN);
  a.inc(Number.POSITIVE_INFINITY);
  a.inc(0);
  assert.doesNotMatch(await registry.metrics(), /things_total\{/);
  a.inc(2);
  assert.match(await registry.metrics(), /^things_total\{kind="a",node="n1"\} 2$/m);
  registry.resetMetrics();
  a.inc();
  assert.match(await registry.metrics(), /^things_total\{kind="a",node="n1"\} 1$/m);
});
