import type { Logger } from 'pino';
import type { LimitRule } from './limit-rule.js';
import type { LimitStore, LimitStoreResult } from './limit-store.js';
import type { MemoryLimitStore } from './memory-limit-store.js';
import type { RedisLimitStore } from './redis-limit-store.js';

/** Where the limits of this instance are kept right now. */
export type LimitBackendState = 'connecting' | 'shared' | 'local';

/**
 * Redis first, this process's memory when Redis cannot answer. A batch goes to Redis
 * while its connection is up; a failure (refused, closed, timed out) switches this
 * instance to per-instance limits, logged once, and Redis is tried again after
 * `retryDelayMs` or as soon as ioredis reconnects (logged once on return). A request
 * never waits longer than Redis's command timeout.
 */
export class FallbackLimitStore implements LimitStore {
  private current: LimitBackendState = 'connecting';
  private retryAt = 0;

  constructor(
    private readonly redis: RedisLimitStore,
    private readonly local: MemoryLimitStore,
    private readonly logger: Logger,
    private readonly retryDelayMs = 1000,
  ) {
    redis.client.on('ready', () => {
      this.retryAt = 0;
      this.markShared();
    });
    redis.client.on('error', (error: Error) => this.markLocal(error));
    redis.client.on('close', () => this.markLocal(undefined));
  }

  /** Limits are currently counted in Redis, across instances. */
  get shared(): boolean {
    return this.current === 'shared';
  }

  get state(): LimitBackendState {
    return this.current;
  }

  /** Connects to Redis; resolves whether the first attempt succeeded (it keeps retrying either way). */
  async start(): Promise<boolean> {
    try {
      await this.redis.connect();
      return true;
    } catch (error) {
      this.markLocal(error);
      return false;
    }
  }

  async apply(rules: readonly LimitRule[]): Promise<LimitStoreResult> {
    if (this.redis.ready && Date.now() >= this.retryAt) {
      try {
        const result = await this.redis.apply(rules);
        this.markShared();
        return result;
      } catch (error) {
        this.retryAt = Date.now() + this.retryDelayMs;
        this.markLocal(error);
      }
    }
    return this.local.applyNow(rules);
  }

  async close(): Promise<void> {
    this.redis.client.removeAllListeners('ready');
    this.redis.client.removeAllListeners('close');
    await this.redis.close();
    this.redis.client.removeAllListeners('error');
    this.redis.client.on('error', () => {});
    await this.local.close();
  }

  private markShared(): void {
    if (this.current === 'shared') return;
    if (this.current === 'local') this.logger.info('redis available again, limits shared across instances');
    this.current = 'shared';
  }

  private markLocal(error: unknown): void {
    if (this.current === 'local') return;
    this.current = 'local';
    this.logger.warn({ err: error }, 'redis unavailable, using per-instance limits');
  }
}
