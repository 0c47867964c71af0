import { timingSafeEqual } from 'node:crypto';
import { hashKey } from '../../auth/key-registry.js';
import { gatewayError } from '../../errors/gateway-error.js';
import { because } from '../../errors/reasons.js';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * Guards /admin/v1: the configured `admin_key` as a Bearer token, compared in constant
 * time (hashes of equal length). Without an admin key in the configuration the admin API
 * is off (403).
 */
export function authenticateAdmin(authorization: string | undefined, adminKey: string | undefined): void {
  if (adminKey === undefined) {
    throw gatewayError('access_denied', { reason: because('admin_api_disabled') });
  }
  const token = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
  if (token === undefined) throw gatewayError('admin_key_missing');
  if (!isAdminKey(token, adminKey)) throw gatewayError('invalid_admin_key');
}

/** Whether `candidate` is the admin key, compared in constant time (hashes of equal length). */
export function isAdminKey(candidate: string, adminKey: string): boolean {
  return timingSafeEqual(hashKey(candidate), hashKey(adminKey));
}
