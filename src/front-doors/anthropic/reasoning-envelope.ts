import { createHmac, timingSafeEqual } from 'node:crypto';
import { ENVELOPE_PREFIX, isEnvelope } from '../../protocol/anthropic/gateway-artifact.js';

/** Bytes of HMAC-SHA256 kept: enough that a forged envelope is never accepted. */
const MAC_BYTES = 16;
/** Longest envelope read back; a longer value is not ours. */
const MAX_ENVELOPE_CHARS = 1 << 20;

/** What a gateway-minted artifact carries: the node that made the reasoning, and what it needs back. */
export interface ReasoningArtifact {
  /** The node (its configured id) that produced the reasoning. */
  readonly node: string;
  /** Gemini thought signatures by tool call id, to give back with those calls (provider-protocols 5.3). */
  readonly toolSignatures?: Readonly<Record<string, string>>;
}

const encode = (text: string): string => Buffer.from(text, 'utf8').toString('base64url');
const decode = (text: string): string => Buffer.from(text, 'base64url').toString('utf8');

/**
 * The reasoning-artifact envelope (inbound-protocols 3.8): a thinking block's `signature`
 * for reasoning a non-Anthropic node made, `swy1.<node>.<payload>.<mac>` with the node id
 * and a JSON payload in base64url and an HMAC over both under the gateway's secret, so
 * only envelopes this gateway made are believed. An Anthropic node's own signature never
 * starts with the prefix and is never wrapped.
 */
export class ReasoningEnvelopes {
  constructor(private readonly secret: Buffer) {}

  seal(artifact: ReasoningArtifact): string {
    const payload = artifact.toolSignatures === undefined ? {} : { s: artifact.toolSignatures };
    const body = `${ENVELOPE_PREFIX}${encode(artifact.node)}.${encode(JSON.stringify(payload))}`;
    return `${body}.${this.mac(body).toString('base64url')}`;
  }

  /** The artifact of an envelope this gateway sealed; undefined for anything else (a native signature, a forgery). */
  open(value: unknown): ReasoningArtifact | undefined {
    if (typeof value !== 'string' || value.length > MAX_ENVELOPE_CHARS || !isEnvelope(value)) return undefined;
    const lastDot = value.lastIndexOf('.');
    const body = value.slice(0, lastDot);
    const given = Buffer.from(value.slice(lastDot + 1), 'base64url');
    if (given.length !== MAC_BYTES || !timingSafeEqual(given, this.mac(body))) return undefined;
    const [node, payload] = body.slice(ENVELOPE_PREFIX.length).split('.');
    if (node === undefined || payload === undefined) return undefined;
    try {
      const parsed = JSON.parse(decode(payload)) as { s?: unknown };
      const signatures = readSignatures(parsed.s);
      return signatures === undefined ? { node: decode(node) } : { node: decode(node), toolSignatures: signatures };
    } catch {
      return undefined;
    }
  }

  private mac(body: string): Buffer {
    return createHmac('sha256', this.secret).update(body).digest().subarray(0, MAC_BYTES);
  }
}

function readSignatures(value: unknown): Record<string, string> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const signatures: Record<string, string> = {};
  for (const [id, signature] of Object.entries(value)) if (typeof signature === 'string') signatures[id] = signature;
  return Object.keys(signatures).length === 0 ? undefined : signatures;
}
