import { createHash, timingSafeEqual } from 'node:crypto';
import type { KeyConfig, KeyStatus } from '../config/gateway-config.js';

/** Who is calling: what the rest of the pipeline may know about a key (never the key itself). */
export interface Principal {
  /** Stable id of the key: its hash prefix. */
  readonly keyId: string;
  /** The first characters of the key, for logs and listings. */
  readonly keyPrefix: string;
  readonly accountId: string | undefined;
  readonly status: KeyStatus;
}

/** Finds the key record for a presented secret. The store-backed cache implements it later. */
export interface KeyLookup {
  find(secret: string): Principal | undefined;
}

interface Entry {
  readonly hash: Buffer;
  readonly principal: Principal;
}

/** SHA-256 of a key: what is kept in memory (and, later, in the store) instead of the key. */
export function hashKey(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

/** The short, loggable prefix of a key. */
export function keyPrefixOf(secret: string): string {
  return secret.slice(0, Math.min(12, Math.max(4, secret.length - 8)));
}

/**
 * Keys declared in the configuration, kept only as hashes. Lookup is by hash, then the
 * stored and presented hashes are compared in constant time.
 */
export class ConfigKeyRegistry implements KeyLookup {
  private readonly byHash = new Map<string, Entry>();

  constructor(keys: readonly KeyConfig[]) {
    for (const key of keys) {
      const hash = hashKey(key.key);
      const hex = hash.toString('hex');
      this.byHash.set(hex, {
        hash,
        principal: { keyId: hex.slice(0, 16), keyPrefix: keyPrefixOf(key.key), accountId: key.accountId, status: key.status },
      });
    }
  }

  find(secret: string): Principal | undefined {
    const hash = hashKey(secret);
    const entry = this.byHash.get(hash.toString('hex'));
    return entry !== undefined && timingSafeEqual(entry.hash, hash) ? entry.principal : undefined;
  }
}
