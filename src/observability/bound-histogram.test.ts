import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Histogram, Registry } from 'prom-client';
import { BoundHistogram } from './bound-histogram.js';

const buckets = [0.005, 0.01, 0.1, 1, 10];

function pair(): {
  ours: Registry;
  theirs: Registry;
  bound: BoundHistogram<'model' | 'stream'>;
  histogram: Histogram<'model' | 'stream'>;
} {
  const ours = new Registry();
  const theirs = new Registry();
  const config = { name: 'x_seconds', help: 'Some "help"\\.', labelNames: ['model', 'stream'] as const, buckets };
  return {
    ours,
    theirs,
    bound: new BoundHistogram({ ...config, registers: [ours] }),
    histogram: new Histogram({ ...config, labelNames: ['model', 'stream'], registers: [theirs] }),
  };
}

test('a BoundHistogram renders what a prom-client Histogram with the same observations renders', async () => {
  const { ours, theirs, bound, histogram } = pair();
  assert.equal(await ours.metrics(), await theirs.metrics());
  const observations: [string, string, number][] = [
    ['b', 'true', 0.003],
    ['a', 'false', 0.01],
    ['b', 'true', 7],
    ['a', 'false', 42],
    ['a\n"x"', 'false', 0],
    ['b', 'true', 0.2],
  ];
  // Bound before use, observed later: listed in the order first observed, like prom-client.
  const late = bound.series('late', () => ({ model: 'late', stream: 'false' }));
  for (const [model, stream, value] of observations) {
    bound.series(`${model}/${stream}`, () => ({ model, stream })).observe(value);
    histogram.observe({ model, stream }, value);
  }
  late.observe(1);
  histogram.observe({ model: 'late', stream: 'false' }, 1);
  assert.equal(await ours.metrics(), await theirs.metrics());
  const json = (await ours.getMetricsAsJSON())[0];
  const expected = (await theirs.getMetricsAsJSON())[0] as unknown as { values: Record<string, unknown>[] };
  for (const value of expected.values) delete value.exemplar;
  assert.deepEqual(JSON.parse(JSON.stringify(json)), JSON.parse(JSON.stringify(expected)));
  assert.throws(() => late.observe(Number.NaN), TypeError);
});

test('a BoundHistogram reset empties it as prom-client does; bound series keep working', async () => {
  const { ours, theirs, bound, histogram } = pair();
  const series = bound.series('a', () => ({ model: 'a', stream: 'true' }));
  series.observe(0.5);
  histogram.observe({ model: 'a', stream: 'true' }, 0.5);
  ours.resetMetrics();
  theirs.resetMetrics();
  assert.equal(await ours.metrics(), await theirs.metrics());
  series.observe(2);
  histogram.observe({ model: 'a', stream: 'true' }, 2);
  assert.equal(await ours.metrics(), await theirs.metrics());
});
