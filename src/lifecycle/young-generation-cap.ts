import { PerformanceObserver, type PerformanceObserverEntryList } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/**
 * How large `switchyard serve` lets V8's young generation (new space: its two semi-spaces)
 * grow under load, in MiB: what `--max-semi-space-size=8` gives.
 */
export const YOUNG_GENERATION_CAP_MIB = 16;

/**
 * Collections closer than this (ms) mean the gateway allocates fast (under load): only then
 * may the young generation grow. At idle, the few collections after start would otherwise
 * grow it to 8 MiB for nothing (~4.5 MiB more idle RSS).
 */
const BUSY_INTERVAL_MS = 100;

/** An operator's own young-generation flag, on node's command line or in NODE_OPTIONS. */
const OPERATOR_FLAG =
  /(^|\s)--(max|min)[-_]semi[-_]space[-_]size(=|\s|$)|(^|\s)--semi[-_]space[-_]growth[-_]factor(=|\s|$)/;

/** What the young generation's hold reads and sets; the process's own unless given. */
export interface YoungGenerationOptions {
  readonly execArgv?: readonly string[];
  readonly nodeOptions?: string;
  readonly setFlags?: (flags: string) => void;
  /** The new space's size now, in bytes. */
  readonly newSpaceBytes?: () => number;
}

/** Lets the young generation grow again, up to the cap, after each collection that left it below. */
export interface YoungGenerationCap {
  /** From now on, the young generation grows under load up to the cap (once: later calls do nothing). */
  release(capMiB?: number): void;
  /** Stops watching collections (the growth factor stays as last set). */
  stop(): void;
}

function newSpaceSize(): number {
  for (const space of getHeapSpaceStatistics()) if (space.space_name === 'new_space') return space.space_size;
  return 0;
}

/**
 * Holds V8's young generation at its initial size (1 MiB a semi-space) while the gateway
 * starts, then, once released, lets it grow under load up to YOUNG_GENERATION_CAP_MIB.
 *
 * V8 doubles the young generation (`--semi-space-growth-factor`, read at each growth) while
 * many objects survive its collections. At start, what survives is the modules' code and
 * the configuration, which belong in the old generation anyway: V8 grew the new space to
 * 16 MiB while loading them, ~12 MiB of it still resident at idle. Under load, Node 24 lets
 * it reach 128 MiB (Node 20: 32 MiB), which the process keeps resident: peak RSS 282 MiB on
 * Node 24 for the memory bench, 167 MiB with the cap. `--max-semi-space-size` is read once
 * when V8 starts, so the cap works through the growth factor instead: after each collection,
 * 2 (V8's default) while the new space is below the cap and collections come less than
 * BUSY_INTERVAL_MS apart, else 1. V8 still shrinks it when allocation slows down.
 *
 * An operator's own `--max-semi-space-size` (command line or NODE_OPTIONS), or
 * `--min-semi-space-size` or `--semi-space-growth-factor` (command line: node refuses them
 * in NODE_OPTIONS), leaves V8's young generation alone: hold and cap do nothing.
 */
export function holdYoungGeneration(options: YoungGenerationOptions = {}): YoungGenerationCap {
  const given = [...(options.execArgv ?? process.execArgv), options.nodeOptions ?? process.env.NODE_OPTIONS ?? ''];
  if (given.some((argument) => OPERATOR_FLAG.test(argument))) return { release: () => {}, stop: () => {} };
  const setFlags = options.setFlags ?? setFlagsFromString;
  const bytes = options.newSpaceBytes ?? newSpaceSize;
  let factor = 1;
  setFlags('--semi-space-growth-factor=1');
  let observer: PerformanceObserver | undefined;
  let stopped = false;
  return {
    release(capMiB = YOUNG_GENERATION_CAP_MIB) {
      if (observer !== undefined || stopped) return;
      const capBytes = capMiB * 1024 * 1024;
      let lastCollectionMs = Number.NEGATIVE_INFINITY;
      const follow = (entries: PerformanceObserverEntryList) => {
        let busy = false;
        for (const entry of entries.getEntries()) {
          busy = entry.startTime - lastCollectionMs < BUSY_INTERVAL_MS;
          lastCollectionMs = entry.startTime;
        }
        const wanted = busy && bytes() < capBytes ? 2 : 1;
        if (wanted === factor) return;
        factor = wanted;
        setFlags(`--semi-space-growth-factor=${wanted}`);
      };
      observer = new PerformanceObserver(follow);
      observer.observe({ entryTypes: ['gc'] });
    },
    stop() {
      stopped = true;
      observer?.disconnect();
    },
  };
}
