/**
 * The batch a simulated node runs at once, like vLLM's `max_num_seqs`: up to `limit`
 * requests run; later ones wait in arrival order until one ends. No limit: every request
 * runs at once. The counts are what the node's metrics report as running and waiting.
 */
export class SequenceSlots {
  readonly #limit: number;
  readonly #waiting: Array<() => void> = [];
  #running = 0;

  constructor(limit = Number.POSITIVE_INFINITY) {
    if (!(limit >= 1)) throw new RangeError('SequenceSlots: the limit must be >= 1');
    this.#limit = limit;
  }

  get running(): number {
    return this.#running;
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  /**
   * Resolves true once the request runs (then call `release` exactly once), or false when
   * `signal` aborts while it waits (it leaves the queue and holds nothing).
   */
  acquire(signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    if (this.#running < this.#limit) {
      this.#running++;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const start = (): void => {
        signal.removeEventListener('abort', leave);
        this.#running++;
        resolve(true);
      };
      const leave = (): void => {
        const at = this.#waiting.indexOf(start);
        if (at >= 0) this.#waiting.splice(at, 1);
        resolve(false);
      };
      this.#waiting.push(start);
      signal.addEventListener('abort', leave, { once: true });
    });
  }

  /** Ends a running request; the longest-waiting request starts. */
  release(): void {
    this.#running--;
    this.#waiting.shift()?.();
  }
}
