import { isRecord } from '../../validation/is-record.js';
import type { ReasoningEnvelope } from '../reasoning-envelope.js';
import { remadeOnChange } from '../remade-on-change.js';

/** What a gateway-minted artifact carries: the node that made the reasoning, and what it needs back. */
export interface ReasoningArtifact {
  /** The node (its configured id) that produced the reasoning. */
  readonly node: string;
  /** Gemini thought signatures by tool call id, to give back with those calls (provider-protocols 5.3). */
  readonly toolSignatures?: Readonly<Record<string, string>>;
}

/**
 * Thinking signatures for reasoning a non-Anthropic node made (inbound-protocols 3.8): a
 * thinking block's `signature` is the gateway's reasoning envelope naming the node, with
 * the Gemini thought signatures of its tool calls. An Anthropic node's own signature never
 * starts with the envelope prefix and is never wrapped.
 */
export class ThinkingSignatures {
  constructor(private readonly envelope: ReasoningEnvelope) {}

  seal(artifact: ReasoningArtifact): string {
    return this.envelope.seal(
      artifact.node,
      artifact.toolSignatures === undefined ? {} : { s: artifact.toolSignatures },
    );
  }

  /** The artifact of a signature this gateway sealed; undefined for anything else (a native signature, a forgery). */
  open(value: unknown): ReasoningArtifact | undefined {
    const opened = this.envelope.open(value);
    if (opened === undefined) return undefined;
    const signatures = readSignatures(opened.payload.s);
    return signatures === undefined ? { node: opened.node } : { node: opened.node, toolSignatures: signatures };
  }
}

/** Thinking signatures under the gateway's current envelope (made again only when the envelope changes). */
export function thinkingSignaturesOf(envelope: () => ReasoningEnvelope): () => ThinkingSignatures {
  return remadeOnChange(envelope, (current) => new ThinkingSignatures(current));
}

function readSignatures(value: unknown): Record<string, string> | undefined {
  if (!isRecord(value)) return undefined;
  const signatures: Record<string, string> = {};
  for (const [id, signature] of Object.entries(value)) if (typeof signature === 'string') signatures[id] = signature;
  return Object.keys(signatures).length === 0 ? undefined : signatures;
}
