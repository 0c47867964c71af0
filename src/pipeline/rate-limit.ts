import type { CachedAccount, CachedKey } from '../billing/account-cache.js';
import { rateLimitError, rateLimitHeaders } from '../limits/rate-limit-response.js';
import type { RateLimitDecision, RateLimiter, RateLimitSubject } from '../limits/rate-limiter.js';
import type { Usage } from '../protocol/openai/chat-response-types.js';
import type { RequestContext } from '../context/request-context.js';

/**
 * Whose limits a request counts against: its key, the key's account and the client's
 * address; `countingTokens` for a request of a counting route: what it takes up front
 * from its key's counting budget.
 */
export function rateLimitSubject(
  ip: string,
  key: CachedKey,
  account: CachedAccount | undefined,
  countingTokens?: number,
): RateLimitSubject {
  return {
    keyId: key.record.id,
    keyLimits: key.record.limits ?? undefined,
    accountId: account?.record.id,
    accountLimits: account?.record.limits ?? undefined,
    ip,
    countingTokens,
  };
}

/**
 * Spec 7.2 row 429, PRODUCT.md decision 11: counts the request against every limit that
 * applies (one atomic step, in process or one Redis round trip); a refusal is 429
 * rate_limited with Retry-After. Either way the response carries X-RateLimit-*.
 */
export async function applyRateLimits(
  limiter: RateLimiter,
  subject: RateLimitSubject,
  context: RequestContext,
): Promise<void> {
  applyDecision(await limiter.acquire(subject), context);
}

/**
 * `applyRateLimits` without waiting a turn when the limits are in this process: returns
 * undefined once applied (or throws the 429), a promise only when Redis decides.
 */
export function applyRateLimitsNow(
  limiter: RateLimiter,
  subject: RateLimitSubject,
  context: RequestContext,
): Promise<void> | undefined {
  const decision = limiter.acquireNow(subject);
  if (decision === undefined) return applyRateLimits(limiter, subject, context);
  applyDecision(decision, context);
  return undefined;
}

function applyDecision(decision: RateLimitDecision, context: RequestContext): void {
  if (!decision.allowed) throw rateLimitError(decision);
  context.rateLimitHeaders = rateLimitHeaders(decision);
}

/** Charges the tokens a request used to the tokens-per-minute limits (after the reply; never awaited by the request). */
export function chargeTokens(limiter: RateLimiter, subject: RateLimitSubject, usage: Usage | undefined): void {
  const tokens = usage === undefined ? 0 : usage.prompt_tokens + usage.completion_tokens;
  if (tokens > 0 && limiter.countsTokens(subject)) void limiter.chargeTokens(subject, tokens).catch(() => undefined);
}
