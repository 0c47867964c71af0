import type { NodeConfig } from '../config/gateway-config.js';

/** What stands for a node's key in a node's text passed on to a client. */
const REDACTED = '[redacted]';
/**
 * Keys shorter than this are placeholders (vLLM's `EMPTY`), not secrets: replacing every
 * occurrence of a word that short would garble the node's text.
 */
const MIN_SECRET_CHARS = 8;

function secretOf(node: NodeConfig): string | undefined {
  const key = node.apiKey;
  return key !== undefined && key.length >= MIN_SECRET_CHARS ? key : undefined;
}

/**
 * A node's text (an error message or body) with the node's own key replaced: a node that
 * quotes the key it was sent ("invalid key sk-…") must not hand it to the gateway's clients
 * (issue 28, finding 12). Only where a node's words reach a client as an error, never on the
 * stream path.
 */
export function withoutNodeSecret(text: string, node: NodeConfig): string {
  const secret = secretOf(node);
  return secret === undefined || !text.includes(secret) ? text : text.split(secret).join(REDACTED);
}

/** The same for a node's body as bytes: the same Buffer when the key is not in it (the usual case). */
export function bodyWithoutNodeSecret(body: Buffer, node: NodeConfig): Buffer {
  const secret = secretOf(node);
  if (secret === undefined || body.indexOf(secret) === -1) return body;
  return Buffer.from(withoutNodeSecret(body.toString('utf8'), node));
}
