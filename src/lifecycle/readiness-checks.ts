/**
 * A named dependency check for GET /readyz and the `switchyard_dependency_up{name}` gauge.
 * `check` passes by resolving to `undefined` or `true`; it fails by resolving to `false`,
 * by throwing, or by taking longer than the check time-out. It must not call a model node
 * (readiness never costs tokens): read local state or ping the store/Redis.
 */
export interface ReadinessCheck {
  readonly name: string;
  check(): Promise<void | boolean>;
}

/** One check's verdict. */
export interface ReadinessResult {
  readonly name: string;
  readonly ok: boolean;
  /** Why it failed (the thrown message, "returned false" or "timed out"). */
  readonly reason?: string;
}

/** Checks slower than this fail: a probe must answer fast even when a dependency hangs. */
export const READINESS_TIMEOUT_MS = 2_000;

/**
 * The gateway's readiness checks. Other parts register theirs at start
 * (`services.readiness.register({ name: 'store', check: () => store.ping() })`); every
 * check runs, in parallel, for each /readyz and each /metrics scrape.
 */
export class ReadinessChecks {
  private readonly checks = new Map<string, ReadinessCheck>();

  /** Adds a check (a later one with the same name replaces it); returns a function that removes it. */
  register(check: ReadinessCheck): () => void {
    this.checks.set(check.name, check);
    return () => {
      if (this.checks.get(check.name) === check) this.checks.delete(check.name);
    };
  }

  names(): string[] {
    return [...this.checks.keys()];
  }

  /** Runs every check; never throws. */
  async run(timeoutMs = READINESS_TIMEOUT_MS): Promise<ReadinessResult[]> {
    return Promise.all([...this.checks.values()].map((check) => runOne(check, timeoutMs)));
  }
}

async function runOne(check: ReadinessCheck, timeoutMs: number): Promise<ReadinessResult> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<ReadinessResult>((resolve) => {
    timer = setTimeout(
      () => resolve({ name: check.name, ok: false, reason: `timed out after ${timeoutMs} ms` }),
      timeoutMs,
    );
  });
  const verdict = (async (): Promise<ReadinessResult> => {
    try {
      const outcome = await check.check();
      return outcome === false
        ? { name: check.name, ok: false, reason: 'returned false' }
        : { name: check.name, ok: true };
    } catch (error) {
      return { name: check.name, ok: false, reason: error instanceof Error ? error.message : String(error) };
    }
  })();
  try {
    return await Promise.race([verdict, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
