/**
 * Whether and why a request was cancelled (client gone, deadline, shutdown), and who to
 * tell. It plays the part of an AbortController/AbortSignal pair, which the gateway made
 * once per request: an AbortSignal is an EventTarget with its own listener map, and
 * making, listening to and dropping one was about 2.5 KB of garbage and a few per cent of
 * the CPU of a request. Nothing outside the gateway sees it (undici is told through its
 * dispatch controller), so a plain object with a listener list does the same job.
 */
export class Cancellation {
  private cancelled = false;
  private cause: unknown = undefined;
  private listeners: Array<() => void> | undefined;
  /** For a child of `withTimeout`: stops its timer and its parent's listener. */
  private detach: (() => void) | undefined;

  get aborted(): boolean {
    return this.cancelled;
  }

  /** What `abort` was given; undefined until then. */
  get reason(): unknown {
    return this.cause;
  }

  /** Cancels once: later calls are ignored. Listeners run in the order they were added. */
  abort(reason: unknown): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.cause = reason;
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners !== undefined) for (const listener of listeners) listener();
  }

  /** Calls `listener` at the abort (not if it already happened: check `aborted` first). */
  onAbort(listener: () => void): void {
    if (this.cancelled) return;
    (this.listeners ??= []).push(listener);
  }

  offAbort(listener: () => void): void {
    const listeners = this.listeners;
    if (listeners === undefined) return;
    const index = listeners.indexOf(listener);
    if (index !== -1) listeners.splice(index, 1);
  }

  /**
   * A cancellation that fires with this one (same reason) or after `timeoutMs` with a
   * `TimeoutError`, like `AbortSignal.any([signal, AbortSignal.timeout(ms)])`. Its timer
   * does not hold the process open. Call `release` when the work it guards is over: until
   * then its timer and its listener on this one stay, with everything they reach.
   */
  withTimeout(timeoutMs: number): Cancellation {
    const child = new Cancellation();
    if (this.cancelled) {
      child.abort(this.cause);
      return child;
    }
    const forward = (): void => child.abort(this.cause);
    this.onAbort(forward);
    const timer = setTimeout(
      () => child.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
      timeoutMs,
    );
    timer.unref();
    child.detach = () => {
      clearTimeout(timer);
      this.offAbort(forward);
    };
    child.onAbort(() => child.release());
    return child;
  }

  /** The work this cancellation guards is over: a `withTimeout` child stops its timer and stops listening (no-op otherwise). */
  release(): void {
    const detach = this.detach;
    this.detach = undefined;
    detach?.();
  }

  /** An already cancelled one. */
  static aborted(reason: unknown): Cancellation {
    const cancellation = new Cancellation();
    cancellation.abort(reason);
    return cancellation;
  }
}
