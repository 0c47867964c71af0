import { BoundMetric } from './bound-metric.js';

/** One label set of a `BoundCounter`. */
export interface CounterSeries {
  inc(amount?: number): void;
}

class Series implements CounterSeries {
  value = 0;
  /** Counted since creation or the last reset: shown (like prom-client, which adds a series at its first increment). */
  used = false;

  constructor(readonly labels: Readonly<Record<string, string>>) {}

  inc(amount = 1): void {
    if (!Number.isFinite(amount)) throw new TypeError(`Value is not a valid number: ${amount}`);
    if (amount < 0) throw new Error('It is not possible to decrease a counter');
    this.value += amount;
    this.used = true;
  }
}

/**
 * A Prometheus counter whose label sets are bound once (`series(labels)`), so counting is
 * one addition; prom-client's Counter checks and hashes the label object on every
 * increment, also through `labels()` children. Registered in a prom-client Registry and
 * rendered by it line for line like prom-client's counters.
 */
export class BoundCounter extends BoundMetric<Series> {
  readonly type = 'counter';
  readonly aggregator = 'sum';

  protected newSeries(labels: Readonly<Record<string, string>>): Series {
    return new Series(labels);
  }

  async get() {
    const values = [...this.all.values()].filter((series) => series.used).map((series) => ({ value: series.value, labels: series.labels }));
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** Back to zero; bound series stay valid. */
  reset(): void {
    for (const series of this.all.values()) {
      series.value = 0;
      series.used = false;
    }
  }
}
