import type { CachedAccount, CachedKey } from '../billing/account-cache.js';
import type { RateLimitSubject } from '../limits/rate-limiter.js';
import type { GatewayServices } from '../gateway-services.js';
import type { Principal } from '../auth/key-registry.js';
import { refuseFailedAuthentication } from './auth-failures.js';
import { authenticate } from './authenticate.js';
import { applyRateLimitsNow, rateLimitSubject } from './rate-limit.js';
import type { RequestContext } from '../context/request-context.js';
import type { MaybeAsync } from '../context/when-ready.js';

/** Who is asking, established from the request's headers alone. */
export interface Admission {
  readonly key: CachedKey;
  readonly account: CachedAccount | undefined;
  /** Whose limits the request counts against. */
  readonly subject: RateLimitSubject;
}

/** What admission reads of a request: its credentials and where it comes from. */
export interface Credentials {
  /** The `Authorization` header (or the key a front door read from its own header, as `Bearer <key>`). */
  readonly authorization: string | undefined;
  /** The client's address (after trusted proxies). */
  readonly clientIp: string;
}

/**
 * Before the body is read (PRODUCT.md decision 22): the key (401; 429 once the client's
 * address is over its failed-authentication limit) and the request-rate limits of the key,
 * its account and the client's address (429, the address's failed-authentication limit
 * checked in the same step, and for a counting request the `countingTokens` it takes up
 * front from the key's counting budget), so a refused request never gets to pin a body in
 * memory. A promise only when the limits live in Redis or the key was wrong.
 */
export function admit(
  services: GatewayServices,
  credentials: Credentials,
  context: RequestContext,
  countingTokens?: number,
): MaybeAsync<Admission> {
  let principal: Principal;
  try {
    principal = authenticate(credentials.authorization, services.accounts, context);
  } catch (failure) {
    return refuseFailedAuthentication(context.snapshot.limiter, credentials.clientIp, failure);
  }
  const { key, account } = services.billing.entriesOf(principal);
  const subject = rateLimitSubject(credentials.clientIp, key, account, countingTokens);
  const admission: Admission = { key, account, subject };
  const limited = applyRateLimitsNow(context.snapshot.limiter, subject, context);
  return limited === undefined ? admission : limited.then(() => admission);
}
