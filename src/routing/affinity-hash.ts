/**
 * Fast non-cryptographic hashes for affinity (PRODUCT decision 26): a session key or a
 * conversation's opening to a 32-bit number, and the rendezvous score of that number on a
 * node. Nothing here is a secret or an integrity check: a collision only puts two sessions
 * on the same node.
 */

import { createHash } from 'node:crypto';

const FNV_OFFSET_BASIS = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
/** A second offset basis, for a second independent 32-bit hash of the same text. */
export const SECOND_HASH_BASIS = 0x9747b28c;

/** 32-bit FNV-1a of the UTF-16 code units of `text` (at most `limit` of them), unsigned. */
export function hashText(text: string, basis = FNV_OFFSET_BASIS, limit = text.length): number {
  let hash = basis;
  const end = Math.min(limit, text.length);
  for (let index = 0; index < end; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, FNV_PRIME);
  }
  return hash >>> 0;
}

/**
 * Above this many characters node:crypto's SHA-1 (native) is cheaper than FNV-1a in
 * JavaScript: 8,000 characters took 41 µs against 191 µs here (both under the same load,
 * /tmp bench of issue 31; a short key is cheaper with FNV, no hash object made).
 */
const NATIVE_HASH_FROM = 256;

/**
 * 64 bits of a hash of `text` as 16 hex characters: two FNV-1a passes for a short text,
 * the first 8 bytes of its SHA-1 for a long one. Equal texts give equal keys.
 */
export function hashKey(text: string): string {
  if (text.length > NATIVE_HASH_FROM) return createHash('sha1').update(text).digest('hex').slice(0, 16);
  return hex(hashText(text)) + hex(hashText(text, SECOND_HASH_BASIS));
}

/** A 32-bit number from a text of any length (FNV-1a when short, SHA-1 when long). */
export function hashToNumber(text: string): number {
  if (text.length > NATIVE_HASH_FROM) return createHash('sha1').update(text).digest().readUInt32BE(0);
  return hashText(text);
}

function hex(value: number): string {
  return value.toString(16).padStart(8, '0');
}

/** MurmurHash3's finaliser: spreads every input bit over the whole 32-bit word. */
export function mix32(value: number): number {
  let hash = value >>> 0;
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/**
 * The rendezvous (highest random weight) score of a key on a node: higher wins. The node's
 * draw is a uniform number in (0, 1) from the key and the node's own hash; with weights,
 * `-weight / ln(draw)` (weighted rendezvous hashing: a node wins a share of keys in
 * proportion to its weight). Removing a node moves only the keys it won.
 */
export function rendezvousScore(key: number, nodeHash: number, weight: number): number {
  const draw = (mix32(mix32(key ^ nodeHash) + nodeHash) + 0.5) / 4294967296;
  return -weight / Math.log(draw);
}
