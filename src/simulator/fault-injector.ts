import type { FailureFault, FaultSettings } from './fault-settings.js';
import { mulberry32, type RandomSource } from './mulberry32.js';

/** Default body of an injected failure: an OpenAI-style server error. */
export const DEFAULT_FAILURE_BODY = {
  error: { message: 'simulated failure', type: 'server_error', param: null, code: 'simulated_failure' },
} as const;

/** What to do with one request, fixed when it arrives. */
export type FaultDecision =
  | { action: 'answer'; extraDelayMs: number; cutAfterChunks: number | undefined }
  | { action: 'reset'; extraDelayMs: number }
  | { action: 'fail'; extraDelayMs: number; status: number; body: unknown; headers: Record<string, string> };

/**
 * Applies FaultSettings request by request, in arrival order. `resetFirst` and `failFirst`
 * count from the same index (the number of requests since the faults were set); the
 * ratio faults draw from a PRNG that restarts from the seed whenever faults are set.
 */
export class FaultInjector {
  readonly #seed: number;
  #settings: FaultSettings = {};
  #requestIndex = 0;
  #random: RandomSource;

  constructor(seed: number) {
    this.#seed = seed;
    this.#random = mulberry32(seed);
  }

  /** The current settings. */
  get settings(): FaultSettings {
    return this.#settings;
  }

  /** Replaces the settings and restarts the counters and the PRNG. */
  set(settings: FaultSettings): void {
    this.#settings = settings;
    this.#requestIndex = 0;
    this.#random = mulberry32(this.#seed);
  }

  /** Counts one request and decides its fate. */
  next(): FaultDecision {
    const settings = this.#settings;
    const index = this.#requestIndex++;
    // Always draw both numbers so the sequence does not depend on which faults are set.
    const resetDraw = this.#random();
    const failDraw = this.#random();
    const extraDelayMs = settings.firstByteDelayMs ?? 0;

    if (index < (settings.resetFirst ?? 0) || resetDraw < (settings.resetRatio ?? 0)) {
      return { action: 'reset', extraDelayMs };
    }
    const failure =
      index < (settings.failFirst?.count ?? 0)
        ? settings.failFirst
        : failDraw < (settings.failRatio?.ratio ?? 0)
          ? settings.failRatio
          : undefined;
    if (failure !== undefined) return failureDecision(failure, extraDelayMs);
    return { action: 'answer', extraDelayMs, cutAfterChunks: settings.cutAfterChunks };
  }
}

function failureDecision(failure: FailureFault, extraDelayMs: number): FaultDecision {
  return {
    action: 'fail',
    extraDelayMs,
    status: failure.status,
    body: failure.body ?? DEFAULT_FAILURE_BODY,
    headers: failure.headers ?? {},
  };
}
