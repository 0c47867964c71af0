import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ENVELOPE_PREFIX, isEnvelope } from '../protocol/anthropic/gateway-artifact.js';
import { remadeOnChange } from './remade-on-change.js';

/** Bytes of HMAC-SHA256 kept: enough that a forged envelope is never accepted. */
const MAC_BYTES = 16;
/** Longest envelope read back; a longer value is not ours. */
const MAX_ENVELOPE_CHARS = 1 << 20;

const encode = (text: string): string => Buffer.from(text, 'utf8').toString('base64url');
const decode = (text: string): string => Buffer.from(text, 'base64url').toString('utf8');

/**
 * The reasoning-artifact envelope (inbound-protocols 3.8, PRODUCT.md decision 17), one for
 * every front door: what a client carries back for reasoning a node made in another
 * protocol (an Anthropic thinking block's `signature`, a Responses reasoning item's
 * `encrypted_content`), `swy1.<node>.<payload>.<mac>` with the node id and a JSON payload
 * in base64url and an HMAC over both under the gateway's secret, so only envelopes this
 * gateway sealed are opened, and the node named is the one the artifact goes back to.
 */
export class ReasoningEnvelope {
  constructor(private readonly secret: Buffer) {}

  seal(node: string, payload: object): string {
    const body = `${ENVELOPE_PREFIX}${encode(node)}.${encode(JSON.stringify(payload))}`;
    return `${body}.${this.mac(body).toString('base64url')}`;
  }

  /** The node and payload of an envelope this gateway sealed; undefined for anything else (a provider's own value, a forgery). */
  open(value: unknown): { readonly node: string; readonly payload: Record<string, unknown> } | undefined {
    if (typeof value !== 'string' || value.length > MAX_ENVELOPE_CHARS || !isEnvelope(value)) return undefined;
    const lastDot = value.lastIndexOf('.');
    const body = value.slice(0, lastDot);
    const given = Buffer.from(value.slice(lastDot + 1), 'base64url');
    if (given.length !== MAC_BYTES || !timingSafeEqual(given, this.mac(body))) return undefined;
    const [node, payload] = body.slice(ENVELOPE_PREFIX.length).split('.');
    if (node === undefined || payload === undefined) return undefined;
    try {
      const parsed = JSON.parse(decode(payload)) as unknown;
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
      return { node: decode(node), payload: parsed as Record<string, unknown> };
    } catch {
      return undefined;
    }
  }

  private mac(body: string): Buffer {
    return createHmac('sha256', this.secret).update(body).digest().subarray(0, MAC_BYTES);
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
