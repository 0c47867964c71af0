import { hashKeyHex, type KeyLookup, type Principal } from '../auth/key-registry.js';
import { gatewayError } from '../errors/gateway-error.js';
import type { RequestContext } from '../context/request-context.js';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * Spec 5: no Bearer token → 401 authentication_required; a key that is unknown or not
 * active (blocked, revoked, deleted) → 401 invalid_api_key; past its `expires_at`, or a
 * secret a rotation replaced past its grace → 401 invalid_api_key saying so and since when
 * (a comparison with the clock, no store call). The key is found by its SHA-256: no
 * comparison touches the secret.
 */
export function authenticate(authorization: string | undefined, keys: KeyLookup, context: RequestContext): Principal {
  const token = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
  if (token === undefined) throw gatewayError('authentication_required');
  const principal = keys.findHashed(hashKeyHex(token));
  if (principal === undefined || principal.status !== 'active') throw gatewayError('invalid_api_key');
  // A key that never expires (most) costs no clock read.
  if (principal.expiresAtMs !== Infinity && Date.now() >= principal.expiresAtMs) {
    const at = new Date(principal.expiresAtMs).toISOString();
    throw gatewayError(principal.expiry === 'replaced' ? 'api_key_replaced' : 'api_key_expired', { params: { at } });
  }
  context.record.keyId = principal.keyId;
  context.record.keyPrefix = principal.keyPrefix;
  context.record.accountId = principal.accountId;
  return principal;
}
