import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { ENVELOPE_PREFIX } from '../protocol/anthropic/gateway-artifact.js';
import { remadeOnChange } from './remade-on-change.js';
import { isRecord } from '../validation/is-record.js';

const CIPHER = 'aes-256-gcm';
/** GCM's nonce (random per envelope) and authentication tag. */
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Longest envelope read back; a longer value is not ours. */
const MAX_ENVELOPE_CHARS = 1 << 20;
/** Bound to the envelope's version: a body sealed for another use of the key does not open as one. */
const ASSOCIATED_DATA = Buffer.from(ENVELOPE_PREFIX, 'utf8');

/**
 * The reasoning-artifact envelope (inbound-protocols 3.8, PRODUCT.md decision 17), one for
 * every front door: what a client carries back for reasoning a node made in another
 * protocol (an Anthropic thinking block's `signature`, a Responses reasoning item's
 * `encrypted_content`). `swy2.<sealed>`: the node id and the payload (reasoning text, a
 * node's signatures) as JSON, encrypted and authenticated with AES-256-GCM under a key
 * derived from the gateway's secret, a fresh nonce each, all in base64url. A client reads
 * neither the node nor the payload (issue 28, finding 12), and only envelopes this gateway
 * sealed open, so the node named is the one the artifact goes back to. The first envelopes
 * (`swy1.`, signed but readable) no longer open: their reasoning is dropped, as that of an
 * envelope from another gateway, never refused.
 */
export class ReasoningEnvelope {
  private readonly key: Buffer;

  constructor(secret: Buffer) {
    this.key = createHmac('sha256', secret).update('switchyard reasoning envelope encryption').digest();
  }

  seal(node: string, payload: object): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(CIPHER, this.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(ASSOCIATED_DATA);
    const plain = JSON.stringify({ node, payload });
    const encrypted = Buffer.concat([iv, cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return ENVELOPE_PREFIX + encrypted.toString('base64url');
  }

  /** The node and payload of an envelope this gateway sealed; undefined for anything else (a provider's own value, a forgery, an old `swy1.` one). */
  open(value: unknown): { readonly node: string; readonly payload: Record<string, unknown> } | undefined {
    if (typeof value !== 'string' || value.length > MAX_ENVELOPE_CHARS || !value.startsWith(ENVELOPE_PREFIX))
      return undefined;
    const sealed = Buffer.from(value.slice(ENVELOPE_PREFIX.length), 'base64url');
    if (sealed.length < IV_BYTES + TAG_BYTES) return undefined;
    try {
      const decipher = createDecipheriv(CIPHER, this.key, sealed.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
      decipher.setAAD(ASSOCIATED_DATA);
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      const plain = Buffer.concat([
        decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
      const parsed: unknown = JSON.parse(plain);
      if (!isRecord(parsed) || typeof parsed.node !== 'string' || !isRecord(parsed.payload)) return undefined;
      return { node: parsed.node, payload: parsed.payload };
    } catch {
      // A tag that does not match (forged, another gateway's key, altered): not ours.
      return undefined;
    }
  }
}

/**
 * The gateway's envelope, for every front door: its secret derived from the admin key,
 * which every instance of one deployment shares, so an envelope sealed by one instance
 * opens on another, and derived again when a reload changes the key; without an admin key,
 * one per process (envelopes then stop opening after a restart, and the reasoning they
 * carried is dropped, not refused).
 */
export function gatewayEnvelope(adminKey: () => string | undefined): () => ReasoningEnvelope {
  const processSecret = randomBytes(32);
  return remadeOnChange(
    adminKey,
    (current) =>
      new ReasoningEnvelope(
        current === undefined
          ? processSecret
          : createHmac('sha256', current).update('switchyard reasoning artifacts').digest(),
      ),
  );
}
