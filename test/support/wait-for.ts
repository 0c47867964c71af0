/** How long and how often `waitFor` polls, and what its failure names. */
export interface WaitForOptions {
  /** Milliseconds between probes (default 20). */
  readonly everyMs?: number;
  /** What was awaited, for the failure message; a function is called at the time of the failure (e.g. to show a log). */
  readonly what?: string | (() => string);
}

/**
 * The one polling helper of the suites: resolves with the milliseconds it took once `probe`
 * (sync or async) returns true, and rejects naming `what` when `timeoutMs` passes first.
 */
export async function waitFor(
  probe: () => boolean | Promise<boolean>,
  timeoutMs = 2000,
  options: WaitForOptions = {},
): Promise<number> {
  const { everyMs = 20, what = 'the condition' } = options;
  const started = Date.now();
  while (!(await probe())) {
    if (Date.now() - started > timeoutMs)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'function' ? what() : what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return Date.now() - started;
}
