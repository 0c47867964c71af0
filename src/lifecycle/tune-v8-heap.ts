import { setFlagsFromString } from 'node:v8';

/** How far the old generation may grow past what survived the last full collection, in percent. */
export const HEAP_GROWING_PERCENT = 50;

/**
 * The V8 flags `switchyard serve` sets at start, each named by the pattern that finds an
 * operator's own value of it on node's command line (which is then left alone; node allows
 * neither in NODE_OPTIONS):
 *
 * - `--heap-growing-percent=50`. Under load, per-request objects are promoted at a few
 *   MB/s, and V8 then lets the old generation reach up to ~4x what survived the last full
 *   collection before the next one: with ~16 MiB live the gateway grew to ~145-160 MiB RSS
 *   at 2,000-6,000 requests/s. Growing by 1.5x instead held it at ~120 MiB for ~1% more
 *   time in full-collection pauses (measured: 16 instead of 4 in 10 s, 107 instead of 24 ms).
 *   `--heap-growing-percent=0` restores V8's adaptive factor.
 * - `--no-allocation-site-pretenuring`. V8 allocates straight into the old generation the
 *   objects of any allocation site whose objects mostly survived their first young
 *   collection. A request's objects live as long as the request: with 64 streams in flight,
 *   each lasting longer than the interval between young collections, most sites that make
 *   per-request objects were judged long-lived, and every stream then left ~21 KB in the
 *   old generation (measured with the sampling heap profiler, objects kept by no young
 *   collection): a full collection every ~120 ms, 22 % of the CPU in the collector and
 *   ~30 % more CPU per stream (kit's stream, 125 against 91 µs; JSON 60.6 against 59.0).
 *   `--allocation-site-pretenuring` restores it.
 *
 * V8 reads both at each collection, so setting them at start is the same as passing them
 * to node.
 */
const TUNING: ReadonlyArray<{ readonly given: RegExp; readonly flag: string }> = [
  { given: /^--heap[-_]growing[-_]percent(=|$)/, flag: `--heap-growing-percent=${HEAP_GROWING_PERCENT}` },
  { given: /^--(no[-_])?allocation[-_]site[-_]pretenuring$/, flag: '--no-allocation-site-pretenuring' },
];

/** Where an operator's own V8 flags would be (node's command line), and how to apply ours. */
export interface HeapTuningOptions {
  readonly execArgv?: readonly string[];
  readonly setFlags?: (flags: string) => void;
}

/** Sets the flags of TUNING the operator did not give; returns them. */
export function tuneV8Heap(options: HeapTuningOptions = {}): string[] {
  const execArgv = options.execArgv ?? process.execArgv;
  const set: string[] = [];
  for (const { given, flag } of TUNING) {
    if (execArgv.some((argument) => given.test(argument))) continue;
    (options.setFlags ?? setFlagsFromString)(flag);
    set.push(flag);
  }
  return set;
}
