import type { Metric, Registry } from 'prom-client';

/**
 * What the bound metrics (`BoundCounter`, `BoundHistogram`) share: registration in a
 * prom-client Registry (which renders them like its own metrics) and one series object
 * per label set, made at the first `series(labels)` and kept, so the hot path counts on
 * the series instead of hashing a label object each time.
 */
export abstract class BoundMetric<Series> {
  protected readonly all = new Map<string, Series>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly string[],
    registry: Registry,
  ) {
    registry.registerMetric(this as unknown as Metric);
  }

  /** Makes the series of a new label set (its own copy of `labels`). */
  protected abstract newSeries(labels: Readonly<Record<string, string>>): Series;

  /** The series of one label set (created at zero); keep it and count on it. */
  series(labels: Readonly<Record<string, string>>): Series {
    const key = this.labelNames.map((name) => labels[name]).join('\u0000');
    let series = this.all.get(key);
    if (series === undefined) {
      series = this.newSeries({ ...labels });
      this.all.set(key, series);
    }
    return series;
  }
}
