import type { Admission } from '../pipeline/admit.js';

/**
 * The `accountId` a stored response is kept under: the key's account, or for a key
 * without one, the key itself (`key:<key id>`; account ids never hold a colon).
 */
export function responseOwner(admission: Admission): string {
  return admission.account?.record.id ?? `key:${admission.key.record.id}`;
}
