import { Counter, type Registry } from 'prom-client';

/** One label set of a `CountedAtScrape` counter: counting is one addition. */
export interface CounterSeries {
  /** Adds `amount` (default 1); a negative, NaN or infinite amount is ignored. */
  inc(amount?: number): void;
}

class PendingSeries implements CounterSeries {
  pending = 0;

  constructor(readonly labels: Readonly<Record<string, string>>) {}

  inc(amount = 1): void {
    if (amount >= 0 && amount !== Number.POSITIVE_INFINITY) this.pending += amount;
  }
}

/**
 * A prom-client Counter for the per-request families, counted on series bound once per
 * label set and added to the Counter when it is collected (a scrape, `registry.metrics()`),
 * through prom-client's `collect` hook. A label child of prom-client's own (`labels()`)
 * checks and hashes its label object and allocates a result on every `inc`: 476 ns per
 * increment against 8 ns here (`node` in-process, one core of this VM), and ~0.9 KB per
 * chat request for the collector (`bash bench/alloc-profile.sh json`). The Counter stays
 * prom-client's (rendering, reset, registry); only the additions wait for the scrape, so a
 * series appears at the first scrape after its first count, as it would.
 */
export class CountedAtScrape<Label extends string> {
  private readonly counter: Counter<Label>;
  private readonly bound = new Map<string, PendingSeries>();

  constructor(config: {
    readonly name: string;
    readonly help: string;
    readonly labelNames: readonly Label[];
    readonly registers: Registry[];
  }) {
    const all = (): Iterable<PendingSeries> => this.bound.values();
    this.counter = new Counter<Label>({
      ...config,
      collect() {
        for (const series of all()) {
          if (series.pending === 0) continue;
          this.inc(series.labels as Partial<Record<Label, string>>, series.pending);
          series.pending = 0;
        }
      },
    });
  }

  /** The series bound under `key`, if one was: the hot path's look-up, nothing allocated. */
  get(key: string): CounterSeries | undefined {
    return this.bound.get(key);
  }

  /**
   * The series of one label set, bound under `key` (one key per label set) at its first
   * use; keep it and count on it. Label values come from configuration and the error
   * registry (models, nodes, statuses, codes), so the series are as bounded as the
   * Counter's own.
   */
  series(key: string, labels: () => Readonly<Record<Label, string>>): CounterSeries {
    let series = this.bound.get(key);
    if (series === undefined) {
      series = new PendingSeries(labels());
      this.bound.set(key, series);
    }
    return series;
  }
}
