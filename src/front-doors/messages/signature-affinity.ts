import { createHash } from 'node:crypto';
import { isEnvelope } from '../../protocol/anthropic/gateway-artifact.js';
import { isRecord } from '../../validation/is-record.js';

/** Signatures remembered at most; the oldest are forgotten first. */
const DEFAULT_CAPACITY = 10_000;
/** A thinking signature in a reply or an event (`"signature":"…"`; Anthropic's are base64, no escapes). */
const SIGNATURE = /"signature":"([A-Za-z0-9+/=_-]{16,})"/g;

function fingerprint(signature: string): string {
  return createHash('sha256').update(signature).digest('base64url').slice(0, 22);
}

/**
 * Which Anthropic node made a thinking signature (PRODUCT.md decision 17): Anthropic's
 * signatures cannot carry the gateway's envelope, so the door remembers, per instance and
 * for the most recent `capacity` signatures, the node each one came from, and a follow-up
 * turn that carries one goes to that node first. A fingerprint per signature, in a ring:
 * memory stays bounded whatever the traffic.
 */
export class SignatureAffinity {
  private readonly nodes = new Map<string, string>();
  private readonly ring: Array<string | undefined>;
  private next = 0;

  constructor(private readonly capacity = DEFAULT_CAPACITY) {
    this.ring = new Array<string | undefined>(capacity);
  }

  /** Remembers the node of every thinking signature in `text` (a native reply or a run of native events). */
  record(text: string, node: string | undefined): void {
    if (node === undefined || !text.includes('"signature":"')) return;
    SIGNATURE.lastIndex = 0;
    for (let match = SIGNATURE.exec(text); match !== null; match = SIGNATURE.exec(text)) {
      const [, signature = ''] = match;
      const key = fingerprint(signature);
      if (!this.nodes.has(key)) {
        const evicted = this.ring[this.next];
        if (evicted !== undefined) this.nodes.delete(evicted);
        this.ring[this.next] = key;
        this.next = (this.next + 1) % this.capacity;
      }
      this.nodes.set(key, node);
    }
  }

  /** The node that made the newest remembered Anthropic signature among `signatures`, if any. */
  nodeOf(signatures: readonly string[]): string | undefined {
    for (let index = signatures.length - 1; index >= 0; index--) {
      const signature = signatures[index];
      if (signature === undefined || isEnvelope(signature)) continue;
      const node = this.nodes.get(fingerprint(signature));
      if (node !== undefined) return node;
    }
    return undefined;
  }
}

/** The signatures of the thinking blocks of a Messages history, in order. */
export function thinkingSignatures(messages: ReadonlyArray<{ role: string; content: unknown }>): string[] {
  const signatures: string[] = [];
  for (const message of messages) {
    if (message.role !== 'assistant' || !Array.isArray(message.content)) continue;
    for (const block of message.content) {
      if (!isRecord(block) || block.type !== 'thinking') continue;
      if (typeof block.signature === 'string' && block.signature !== '') signatures.push(block.signature);
    }
  }
  return signatures;
}
