import { gatewayError, type GatewayError } from '../errors/gateway-error.js';
import type { RateLimitDecision } from './rate-limiter.js';

/** Whole seconds for a wait in ms, rounded up (float dust below a nanosecond ignored). */
export function wholeSeconds(milliseconds: number): number {
  return Math.max(0, Math.ceil(milliseconds / 1000 - 1e-9));
}

/**
 * The X-RateLimit-* headers of a decision, describing its `headline` limit:
 * `x-ratelimit-limit` its units per period, `x-ratelimit-remaining` the units left after
 * this request, `x-ratelimit-reset` the whole seconds (rounded up) until it is full
 * again. Empty when no limit applied.
 */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  const headline = decision.headline;
  if (headline === undefined) return {};
  return {
    'x-ratelimit-limit': String(headline.limit),
    'x-ratelimit-remaining': String(headline.remaining),
    'x-ratelimit-reset': String(wholeSeconds(headline.resetMs)),
  };
}

/** The Retry-After seconds of a refusal: the real wait rounded up, at least 1. */
export function retryAfterSeconds(decision: RateLimitDecision): number {
  return Math.max(1, wholeSeconds(decision.retryAfterMs));
}

/** The 429 `rate_limited` error of a refused decision, carrying Retry-After and the X-RateLimit-* headers. */
export function rateLimitError(decision: RateLimitDecision): GatewayError {
  const retryAfter = retryAfterSeconds(decision);
  return gatewayError('rate_limited', {
    retryAfter,
    params: { retry_after: retryAfter, limit: decision.headline?.name },
    headers: rateLimitHeaders(decision),
  });
}
