import type { Logger } from '../observability/logger.js';

/**
 * Work to do once the gateway stopped serving and before the process exits (flush usage
 * rows, close the store). Runs after every in-flight request finished or was ended, so a
 * hook sees the final state.
 */
export interface ShutdownHook {
  readonly name: string;
  run(): Promise<void>;
}

/** Longest a single hook may take before shutdown moves on (it is logged as failed). */
export const SHUTDOWN_HOOK_TIMEOUT_MS = 10_000;

/**
 * The gateway's shutdown hooks. Registered at start (`services.shutdownHooks.add(...)`),
 * run once, in reverse order of registration (last opened, first closed), one at a time.
 * A hook that throws or overruns is logged and the next one still runs.
 */
export class ShutdownHooks {
  private readonly hooks: ShutdownHook[] = [];
  private ran: Promise<void> | undefined;

  add(hook: ShutdownHook): void {
    this.hooks.push(hook);
  }

  /** Runs every hook once; later calls return the first run. */
  runAll(logger: Logger, timeoutMs = SHUTDOWN_HOOK_TIMEOUT_MS): Promise<void> {
    this.ran ??= (async () => {
      for (const hook of [...this.hooks].reverse()) {
        let timer: NodeJS.Timeout | undefined;
        try {
          await Promise.race([
            hook.run(),
            new Promise<never>((_, reject) => {
              timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
            }),
          ]);
        } catch (error) {
          logger.error({ hook: hook.name, err: error }, 'shutdown hook failed');
        } finally {
          clearTimeout(timer);
        }
      }
    })();
    return this.ran;
  }
}
