import type { Logger } from 'pino';
import type { LimitSettings, RateLimitSettings } from '../config/gateway-config.js';
import type { FallbackLimitStore } from './fallback-limit-store.js';
import type { LimitMode, LimitOutcome, LimitRule } from './limit-rule.js';
import { systemClock, type Clock, type LimitStore, type LimitStoreResult } from './limit-store.js';
import { MemoryLimitStore } from './memory-limit-store.js';
import type { RedisLimitStoreOptions } from './redis-limit-store.js';

const MINUTE_MS = 60_000;
const SECOND_MS = 1_000;
/** Subjects (keys, accounts, addresses) per scope whose rules are kept made; beyond, the cache starts over. */
const MAX_CACHED_SUBJECTS = 10_000;
/** The limit on failed authentications per client address (`limits.auth_failures_per_minute`). */
export const AUTH_FAILURES_LIMIT = 'ip.auth_failures';
/** The limit on tokens the counting routes count for one key (`limits.count_tokens_per_minute`). */
export const COUNT_TOKENS_LIMIT = 'key.count_tokens';

/**
 * Who a request counts against. Every part is optional: a scope without an id is not
 * limited. Ids reach Redis keys, so pass a non-secret key id (its hash or record id),
 * never the API key itself.
 */
export interface RateLimitSubject {
  readonly keyId?: string;
  /** The key's own `limits`, overriding `limits.key` field by field. */
  readonly keyLimits?: Partial<RateLimitSettings>;
  readonly accountId?: string;
  /** The account's own `limits`, overriding `limits.account` field by field. */
  readonly accountLimits?: Partial<RateLimitSettings>;
  /** From `clientIp`. */
  readonly ip?: string;
  /**
   * A request of a counting route (count_tokens, input_tokens): the tokens `acquire` takes
   * from the key's counting budget up front (an upper bound of what its body holds).
   */
  readonly countingTokens?: number;
}

/** A limiter's answer for one request. */
export interface RateLimitDecision {
  readonly allowed: boolean;
  /** 0 when allowed; else the exact wait in ms until every refusing limit lets a request through. */
  readonly retryAfterMs: number;
  /** One per limit that applied, in the order key, account, ip and rpm, rps, tpm. */
  readonly outcomes: readonly LimitOutcome[];
  /**
   * The limit the X-RateLimit-* headers describe. Allowed: the request limit (rpm/rps)
   * with the least remaining, ties to the later reset. Refused: the refusing limit with
   * the longest wait (a TPM limit in debt included). `undefined`: no limit applied.
   */
  readonly headline: LimitOutcome | undefined;
  /** Decided by Redis (across instances), not by this process alone. */
  readonly shared: boolean;
}

/** Options of `createRateLimiter`. */
export interface RateLimiterOptions {
  /** Default limits per scope: `GatewayConfig.limits`. */
  readonly settings: LimitSettings;
  /** `GatewayConfig.redis`; absent: in-process limits only. */
  readonly redisUrl?: string | undefined;
  readonly logger: Logger;
  /** In-process clock (ms); tests inject one. Redis uses its server TIME unless `redis.clock` is set. */
  readonly clock?: Clock;
  /** Fine tuning of the Redis backend (key prefix, timeouts, a test clock). */
  readonly redis?: Omit<RedisLimitStoreOptions, 'url'>;
  /** After a Redis failure, how long this instance stays on local limits before trying Redis again. Default 1000 ms. */
  readonly redisRetryDelayMs?: number;
}

/**
 * Rate limits per API key, account and client IP: requests per minute and per second,
 * tokens per minute. See `src/limits/README.md`.
 */
export class RateLimiter {
  private readonly local: MemoryLimitStore;
  /** The local store until `start` has set up Redis (when configured), then the fallback store. */
  private store: LimitStore;
  private fallback: FallbackLimitStore | undefined;
  private started: Promise<boolean> | undefined;
  private closed = false;
  /** Per scope, by subject id: the rules `acquire` applies, made once (a request reuses them). */
  private readonly keyRules = new Map<string, ScopeRules>();
  private readonly accountRules = new Map<string, ScopeRules>();
  private readonly ipRules = new Map<string, ScopeRules>();

  constructor(private readonly options: RateLimiterOptions) {
    this.local = new MemoryLimitStore(options.clock ?? systemClock);
    this.store = this.local;
  }

  /**
   * Connects to Redis when configured (and keeps reconnecting until `close`); resolves
   * whether limits are shared now. Never rejects; a second call returns the first answer.
   * Until it is called, every check is answered in-process.
   */
  start(): Promise<boolean> {
    this.started ??=
      this.options.redisUrl === undefined ? Promise.resolve(false) : this.startRedis(this.options.redisUrl);
    return this.started;
  }

  /** ioredis is loaded only here, so a gateway without `redis:` never loads it. */
  private async startRedis(url: string): Promise<boolean> {
    const [{ RedisLimitStore }, { FallbackLimitStore }] = await Promise.all([
      import('./redis-limit-store.js'),
      import('./fallback-limit-store.js'),
    ]);
    if (this.closed) return false;
    const redis = new RedisLimitStore({ ...this.options.redis, url });
    this.fallback = new FallbackLimitStore(redis, this.local, this.options.logger, this.options.redisRetryDelayMs);
    this.store = this.fallback;
    return this.fallback.start();
  }

  /** Limits are counted in Redis across instances (false: in-process, configured so or fallen back). */
  get shared(): boolean {
    return this.fallback?.shared ?? false;
  }

  /** For readiness and metrics: which backend counts, and whether Redis is configured at all. */
  health(): {
    readonly redisConfigured: boolean;
    readonly shared: boolean;
    readonly state: 'memory' | 'connecting' | 'shared' | 'local';
  } {
    const redisConfigured = this.options.redisUrl !== undefined;
    return {
      redisConfigured,
      shared: this.shared,
      state: this.fallback?.state ?? (redisConfigured ? 'connecting' : 'memory'),
    };
  }

  /**
   * Before a request: takes one request from every rpm/rps limit of the subject, and
   * checks that no tpm limit is in debt (at least one token left), that the subject's
   * address is not over its failed-authentication limit (`recordAuthFailure`) and, for a
   * counting request, that the key's counting budget is not in debt. All or nothing: a
   * refused request takes nothing.
   */
  acquire(subject: RateLimitSubject): Promise<RateLimitDecision> {
    return this.decide(this.acquireRules(subject));
  }

  /**
   * `acquire` answered at once when the limits are counted in this process (no Redis
   * configured), so the request path need not wait a turn; undefined with Redis.
   */
  acquireNow(subject: RateLimitSubject): RateLimitDecision | undefined {
    if (this.options.redisUrl !== undefined) return undefined;
    const rules = this.acquireRules(subject);
    return rules.length === 0 ? this.nothingApplied() : decisionOf(rules, this.local.applyNow(rules));
  }

  /**
   * After a reply: charges the tokens actually used to every tpm limit of the subject,
   * whether they fit or not. A limit pushed past its TPM refuses the next `acquire`
   * until enough of the minute has passed (a debt). Never refuses itself.
   */
  chargeTokens(subject: RateLimitSubject, tokens: number): Promise<RateLimitDecision> {
    const rules = tokens > 0 && this.countsTokens(subject) ? this.rules(subject, tokens, undefined, 'force') : [];
    return rules.length === 0 ? Promise.resolve(this.nothingApplied()) : this.decide(rules);
  }

  /**
   * A failed authentication (a wrong API key or admin key) from address `ip`: counted
   * against `limits.auth_failures_per_minute` when it fits; refused (nothing counted) once
   * the address is over it. Successes are never counted: `acquire` and
   * `checkAuthFailures` only check that the address is not over it.
   */
  recordAuthFailure(ip: string): Promise<RateLimitDecision> {
    return this.decide(this.authFailureRules(ip, 'consume'));
  }

  /** Whether address `ip` is under its failed-authentication limit (nothing counted): for a successful admin sign-in. */
  checkAuthFailures(ip: string): Promise<RateLimitDecision> {
    return this.decide(this.authFailureRules(ip, 'check'));
  }

  /**
   * After a counting request (count_tokens, input_tokens) whose `acquire` took
   * `countingTokens` up front: charges what it counted beyond that (a stored conversation's
   * tokens) to the key's counting budget (`limits.count_tokens_per_minute`), whether they
   * fit or not (a debt, as for tpm).
   */
  chargeTokenCounting(subject: RateLimitSubject, tokens: number): Promise<RateLimitDecision> {
    const limit = this.options.settings.countTokensPerMinute;
    if (limit === undefined || subject.keyId === undefined) return Promise.resolve(this.nothingApplied());
    const beyond = tokens - countingCost(subject.countingTokens ?? 0, limit);
    return this.decide(beyond > 0 ? this.tokenCountingRules(subject.keyId, beyond, 'force') : []);
  }

  /** The key's counting budget, as a rule. */
  private tokenCountingRules(keyId: string, cost: number, mode: LimitMode): LimitRule[] {
    const limit = this.options.settings.countTokensPerMinute;
    if (limit === undefined) return [];
    return [
      {
        name: COUNT_TOKENS_LIMIT,
        key: `key:${keyId}:count_tokens`,
        limit,
        periodMs: MINUTE_MS,
        cost: mode === 'force' ? cost : countingCost(cost, limit),
        mode,
      },
    ];
  }

  private authFailureRules(ip: string, mode: LimitMode): LimitRule[] {
    const limit = this.options.settings.authFailuresPerMinute;
    return limit === undefined ? [] : [authFailureRule(ip, limit, mode)];
  }

  /** Whether a tokens-per-minute limit applies to the subject (otherwise `chargeTokens` does nothing). */
  countsTokens(subject: RateLimitSubject): boolean {
    const defaults = this.options.settings;
    return (
      (subject.keyId !== undefined &&
        this.scopeRules(this.keyRules, KEY_SCOPE, subject.keyId, defaults.key, subject.keyLimits).countsTokens) ||
      (subject.accountId !== undefined &&
        this.scopeRules(this.accountRules, ACCOUNT_SCOPE, subject.accountId, defaults.account, subject.accountLimits)
          .countsTokens) ||
      (subject.ip !== undefined &&
        this.scopeRules(this.ipRules, IP_SCOPE, subject.ip, defaults.ip, undefined).countsTokens)
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.store.close();
  }

  private nothingApplied(): RateLimitDecision {
    return { allowed: true, retryAfterMs: 0, outcomes: [], headline: undefined, shared: this.shared };
  }

  private async decide(rules: readonly LimitRule[]): Promise<RateLimitDecision> {
    if (rules.length === 0) return this.nothingApplied();
    return decisionOf(rules, await this.store.apply(rules));
  }

  /** What `acquire` applies: each scope's request limits to consume, token limits to check, in scope order. */
  private acquireRules(subject: RateLimitSubject): LimitRule[] {
    const defaults = this.options.settings;
    const rules: LimitRule[] = [];
    if (subject.keyId !== undefined)
      append(rules, this.scopeRules(this.keyRules, KEY_SCOPE, subject.keyId, defaults.key, subject.keyLimits).acquire);
    if (subject.accountId !== undefined)
      append(
        rules,
        this.scopeRules(this.accountRules, ACCOUNT_SCOPE, subject.accountId, defaults.account, subject.accountLimits)
          .acquire,
      );
    if (subject.ip !== undefined)
      append(rules, this.scopeRules(this.ipRules, IP_SCOPE, subject.ip, defaults.ip, undefined).acquire);
    if (subject.countingTokens !== undefined && subject.keyId !== undefined)
      append(rules, this.tokenCountingRules(subject.keyId, subject.countingTokens, 'consume'));
    return rules;
  }

  /** A subject's rules in one scope, made on first use and again when its own limits object changes (a reload). */
  private scopeRules(
    cache: Map<string, ScopeRules>,
    scope: Scope,
    id: string,
    defaults: RateLimitSettings,
    override: Partial<RateLimitSettings> | undefined,
  ): ScopeRules {
    const cached = cache.get(id);
    if (cached !== undefined && cached.override === override) return cached;
    const limits = merge(defaults, override);
    const acquire: LimitRule[] = [];
    addRules(acquire, scope, id, limits, 1, 'consume', 'check');
    const authFailures = this.options.settings.authFailuresPerMinute;
    if (scope === IP_SCOPE && authFailures !== undefined) acquire.push(authFailureRule(id, authFailures, 'check'));
    const made: ScopeRules = { override, acquire, countsTokens: limits.tpm !== undefined };
    if (cache.size >= MAX_CACHED_SUBJECTS) cache.clear();
    cache.set(id, made);
    return made;
  }

  /** The rules of a subject: request limits in `requestMode` (none if undefined), token limits in `tokenMode`. */
  private rules(
    subject: RateLimitSubject,
    tokenCost: number,
    requestMode: LimitMode | undefined,
    tokenMode: LimitMode,
  ): LimitRule[] {
    const defaults = this.options.settings;
    const rules: LimitRule[] = [];
    if (subject.keyId !== undefined)
      addRules(
        rules,
        KEY_SCOPE,
        subject.keyId,
        merge(defaults.key, subject.keyLimits),
        tokenCost,
        requestMode,
        tokenMode,
      );
    if (subject.accountId !== undefined)
      addRules(
        rules,
        ACCOUNT_SCOPE,
        subject.accountId,
        merge(defaults.account, subject.accountLimits),
        tokenCost,
        requestMode,
        tokenMode,
      );
    if (subject.ip !== undefined) addRules(rules, IP_SCOPE, subject.ip, defaults.ip, tokenCost, requestMode, tokenMode);
    return rules;
  }
}

/** One scope's rules for one subject, as `acquire` applies them. */
interface ScopeRules {
  /** The subject's own limits they were made from (identity: a reloaded record brings a new object). */
  readonly override: Partial<RateLimitSettings> | undefined;
  readonly acquire: readonly LimitRule[];
  readonly countsTokens: boolean;
}

function append(rules: LimitRule[], more: readonly LimitRule[]): void {
  for (const rule of more) rules.push(rule);
}

/** A limiter's answer from a store's result for `rules`. */
function decisionOf(rules: readonly LimitRule[], result: LimitStoreResult): RateLimitDecision {
  let retryAfterMs = 0;
  let consumed = 0;
  for (const outcome of result.outcomes) retryAfterMs = Math.max(retryAfterMs, outcome.retryAfterMs);
  for (const rule of rules) if (rule.mode === 'consume') consumed++;
  let headline: LimitOutcome | undefined;
  if (!result.allowed) headline = longestWait(result.outcomes);
  else if (consumed === 0) headline = leastRemaining(result.outcomes);
  else
    headline = leastRemaining(
      consumed === rules.length
        ? result.outcomes
        : result.outcomes.filter((_, index) => rules[index]?.mode === 'consume'),
    );
  return { allowed: result.allowed, retryAfterMs, outcomes: result.outcomes, headline, shared: result.shared };
}

/** Rule names of one scope, built once. */
interface Scope {
  readonly name: string;
  readonly rpm: string;
  readonly rps: string;
  readonly tpm: string;
}

function scope(name: string): Scope {
  return { name, rpm: `${name}.rpm`, rps: `${name}.rps`, tpm: `${name}.tpm` };
}

const KEY_SCOPE = scope('key');
const ACCOUNT_SCOPE = scope('account');
const IP_SCOPE = scope('ip');

/** Appends a scope's rules in the order rpm, rps, tpm (the order of `RateLimitDecision.outcomes`). */
function addRules(
  rules: LimitRule[],
  scope: Scope,
  id: string,
  limits: RateLimitSettings,
  tokenCost: number,
  requestMode: LimitMode | undefined,
  tokenMode: LimitMode,
): void {
  if (requestMode !== undefined) {
    if (limits.rpm !== undefined)
      rules.push({
        name: scope.rpm,
        key: `${scope.name}:${id}:rpm`,
        limit: limits.rpm,
        periodMs: MINUTE_MS,
        cost: 1,
        mode: requestMode,
      });
    if (limits.rps !== undefined)
      rules.push({
        name: scope.rps,
        key: `${scope.name}:${id}:rps`,
        limit: limits.rps,
        periodMs: SECOND_MS,
        cost: 1,
        mode: requestMode,
      });
  }
  if (limits.tpm !== undefined)
    rules.push({
      name: scope.tpm,
      key: `${scope.name}:${id}:tpm`,
      limit: limits.tpm,
      periodMs: MINUTE_MS,
      cost: tokenCost,
      mode: tokenMode,
    });
}

/** What a counting request takes up front: at least 1, at most the whole budget (then it fits an empty bucket only). */
function countingCost(tokens: number, limit: number): number {
  return Math.min(Math.max(1, tokens), limit);
}

/**
 * The bucket of failed authentications of one address: `limit` per minute (a burst of
 * `limit`, then one per 60/limit s). A check takes one unit's room: refused when full.
 */
function authFailureRule(ip: string, limit: number, mode: LimitMode): LimitRule {
  return { name: AUTH_FAILURES_LIMIT, key: `ip:${ip}:authfail`, limit, periodMs: MINUTE_MS, cost: 1, mode };
}

/** Creates a rate limiter; call `start()` to connect to Redis when one is configured. */
export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  return new RateLimiter(options);
}

function merge(base: RateLimitSettings, override: Partial<RateLimitSettings> | undefined): RateLimitSettings {
  if (override === undefined) return base;
  return { rpm: override.rpm ?? base.rpm, rps: override.rps ?? base.rps, tpm: override.tpm ?? base.tpm };
}

/** The outcome with the least left, for the X-RateLimit headline; never the address's failed-authentication check. */
function leastRemaining(outcomes: readonly LimitOutcome[]): LimitOutcome | undefined {
  let best: LimitOutcome | undefined;
  for (const outcome of outcomes) {
    if (outcome.name === AUTH_FAILURES_LIMIT) continue;
    if (
      best === undefined ||
      outcome.remaining < best.remaining ||
      (outcome.remaining === best.remaining && outcome.resetMs > best.resetMs)
    )
      best = outcome;
  }
  return best;
}

function longestWait(outcomes: readonly LimitOutcome[]): LimitOutcome | undefined {
  let best: LimitOutcome | undefined;
  for (const outcome of outcomes) {
    if (!outcome.fits && (best === undefined || outcome.retryAfterMs > best.retryAfterMs)) best = outcome;
  }
  return best;
}
