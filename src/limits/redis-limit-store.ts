import { Redis } from 'ioredis';
import type { LimitOutcome, LimitRule } from './limit-rule.js';
import type { Clock, LimitStore, LimitStoreResult } from './limit-store.js';
import { GCRA_LUA } from './redis-limit-script.js';

const COMMAND = 'switchyardGcra';

/** Options of the Redis backend. */
export interface RedisLimitStoreOptions {
  /** `redis://` or `rediss://` URL. */
  readonly url: string;
  /** Prepended to every bucket key; tests use a unique one per run. Default `switchyard:limits:`. */
  readonly keyPrefix?: string;
  /** A command without a reply by then fails (and the caller falls back). Default 75 ms. */
  readonly commandTimeoutMs?: number;
  /** Default 1000 ms. */
  readonly connectTimeoutMs?: number;
  /** Upper bound of the reconnect back-off. Default 2000 ms. */
  readonly reconnectMaxDelayMs?: number;
  /**
   * Use this clock instead of the Redis server's TIME. Only for tests: with several
   * instances, server time is what keeps skewed clocks in agreement.
   */
  readonly clock?: Clock;
}

type GcraCommand = (numberOfKeys: number, ...args: string[]) => Promise<unknown>;

/**
 * The shared backend: one Lua script (EVALSHA, loaded by ioredis `defineCommand`)
 * checks and applies a whole batch in one atomic round trip, on the server's clock.
 * It never queues: with the connection down a command fails at once
 * (`enableOfflineQueue: false`), and a slow one fails after `commandTimeoutMs`.
 */
export class RedisLimitStore implements LimitStore {
  readonly client: Redis;
  private readonly prefix: string;
  private readonly clock: Clock | undefined;
  private readonly gcra: GcraCommand;

  constructor(options: RedisLimitStoreOptions) {
    const reconnectMaxDelayMs = options.reconnectMaxDelayMs ?? 2000;
    this.client = new Redis(options.url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      commandTimeout: options.commandTimeoutMs ?? 75,
      connectTimeout: options.connectTimeoutMs ?? 1000,
      retryStrategy: (times) => Math.min(50 * 2 ** Math.min(times, 10), reconnectMaxDelayMs),
    });
    this.client.defineCommand(COMMAND, { lua: GCRA_LUA });
    const command: unknown = Reflect.get(this.client, COMMAND);
    if (typeof command !== 'function') throw new Error('ioredis did not define the GCRA command');
    this.gcra = (command as GcraCommand).bind(this.client);
    this.prefix = options.keyPrefix ?? 'switchyard:limits:';
    this.clock = options.clock;
  }

  /** Starts connecting (and reconnecting for as long as the store is open). Rejects if the first attempt fails. */
  connect(): Promise<void> {
    return this.client.connect();
  }

  /** The connection is up and commands are sent. */
  get ready(): boolean {
    return this.client.status === 'ready';
  }

  async apply(rules: readonly LimitRule[]): Promise<LimitStoreResult> {
    if (rules.length === 0) return { allowed: true, outcomes: [], shared: true };
    const keys = rules.map((rule) => this.prefix + rule.key);
    const args = rules.flatMap((rule) => [String(rule.limit), String(rule.periodMs), String(rule.cost), rule.mode]);
    const now = this.clock === undefined ? '' : String(this.clock());
    const reply = await this.gcra(keys.length, ...keys, now, ...args);
    return parseReply(reply, rules);
  }

  async close(): Promise<void> {
    if (this.client.status === 'end') return;
    try {
      await this.client.quit();
    } catch {
      this.client.disconnect();
    }
  }
}

function parseReply(reply: unknown, rules: readonly LimitRule[]): LimitStoreResult {
  if (!Array.isArray(reply) || reply.length !== 1 + rules.length * 4) {
    throw new Error(`unexpected GCRA script reply: ${JSON.stringify(reply)}`);
  }
  const number = (index: number): number => {
    const value = Number(reply[index]);
    if (!Number.isFinite(value)) throw new Error(`unexpected GCRA script value: ${String(reply[index])}`);
    return value;
  };
  const outcomes = rules.map((rule, index): LimitOutcome => {
    const base = 1 + index * 4;
    return {
      name: rule.name,
      limit: rule.limit,
      periodMs: rule.periodMs,
      fits: number(base) === 1,
      remaining: number(base + 1),
      resetMs: number(base + 2),
      retryAfterMs: number(base + 3),
    };
  });
  return { allowed: number(0) === 1, outcomes, shared: true };
}
