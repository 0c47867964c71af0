import { isGatewayError } from '../errors/gateway-error.js';
import { rateLimitError } from '../limits/rate-limit-response.js';
import type { RateLimiter } from '../limits/rate-limiter.js';

/**
 * After a failed authentication (a wrong API key, admin key or console sign-in) from
 * address `ip`: counts it against the address's failed-attempt limit and rethrows the
 * failure (401), or throws 429 rate_limited with Retry-After once the address is over the
 * limit. A request without credentials (`authentication_required`, `admin_key_missing`) is
 * not a guess and is not counted. Never returns.
 */
export async function refuseFailedAuthentication(limiter: RateLimiter, ip: string, failure: unknown): Promise<never> {
  if (!isGatewayError(failure) || (failure.code !== 'invalid_api_key' && failure.code !== 'invalid_admin_key'))
    throw failure;
  const decision = await limiter.recordAuthFailure(ip);
  if (!decision.allowed) throw rateLimitError(decision);
  throw failure;
}

/**
 * Authenticates with `check` (which throws on a wrong secret) for address `ip`: a failure
 * goes to `refuseFailedAuthentication`; a success is refused with 429 while the address is
 * over its failed-attempt limit (otherwise the limit would not slow a guesser, whose right
 * guess would pass), and is never counted.
 */
export async function authenticateLimited(limiter: RateLimiter, ip: string, check: () => void): Promise<void> {
  try {
    check();
  } catch (failure) {
    return refuseFailedAuthentication(limiter, ip, failure);
  }
  const decision = await limiter.checkAuthFailures(ip);
  if (!decision.allowed) throw rateLimitError(decision);
}
