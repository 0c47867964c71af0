import { hashKeyHex, type KeyLookup, type Principal } from '../auth/key-registry.js';
import { gatewayError } from '../errors/gateway-error.js';
import type { RequestContext } from './request-context.js';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** The last Authorization header a connection sent that named a known key, and that key's hash. */
interface KnownAuthorization {
  readonly header: string;
  readonly hashHex: string;
}

/**
 * By connection (its socket): a keep-alive client sends the same key request after
 * request, and the key's SHA-256 need not be taken again. The header is compared with
 * the one the same connection sent before, so the comparison tells a client nothing
 * about any secret but its own.
 */
const knownByConnection = new WeakMap<object, KnownAuthorization>();

/**
 * Spec 5: no Bearer token → 401 authentication_required; a key that is unknown or not
 * active (blocked, revoked, deleted) → 401 invalid_api_key. `connection` (the request's
 * socket) lets a connection's repeated key skip the hash; the key is looked up every time.
 */
export function authenticate(authorization: string | undefined, keys: KeyLookup, context: RequestContext, connection?: object): Principal {
  const known = connection === undefined ? undefined : knownByConnection.get(connection);
  let principal: Principal | undefined;
  if (known !== undefined && known.header === authorization) {
    principal = keys.findHashed(known.hashHex);
  } else {
    const match = authorization === undefined ? null : BEARER.exec(authorization);
    if (match === null) throw gatewayError('authentication_required');
    const hashHex = hashKeyHex(match[1] as string);
    principal = keys.findHashed(hashHex);
    if (principal !== undefined && connection !== undefined) knownByConnection.set(connection, { header: authorization as string, hashHex });
  }
  if (principal === undefined || principal.status !== 'active') throw gatewayError('invalid_api_key');
  context.record.keyPrefix = principal.keyPrefix;
  context.record.accountId = principal.accountId;
  return principal;
}
