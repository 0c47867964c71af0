import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** What a translated node's reasoning needs to come back to it: its text, or its signed blocks. */
export interface ReasoningArtifact {
  /** Plain reasoning text (chat nodes that take `reasoning_content` back). */
  readonly reasoning_content?: string;
  /** Anthropic thinking / redacted-thinking blocks as the chat form carries them. */
  readonly thinking_blocks?: readonly Record<string, unknown>[];
}

const PREFIX = 'swy1';

function base64url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}

/**
 * The reasoning-artifact envelope (inbound-protocols 3.8, PRODUCT.md decision 17): a
 * reasoning item's `encrypted_content` written by Switchyard when the reasoning came from a
 * translated node, `swy1.<node>.<payload>.<mac>` with the node id and the artifact in
 * base64url and an HMAC over both, so a forged or edited envelope is refused. Only the node
 * that made it is given the artifact back. The key lives in this process; an envelope from
 * another instance or an earlier run is not opened, and its reasoning is dropped like any
 * other artifact the node cannot read.
 */
export class ReasoningEnvelope {
  constructor(private readonly key: Buffer = randomBytes(32)) {}

  seal(node: string, artifact: ReasoningArtifact): string {
    const body = `${PREFIX}.${base64url(node)}.${base64url(JSON.stringify(artifact))}`;
    return `${body}.${this.mac(body)}`;
  }

  /** The node and artifact of an envelope this gateway wrote; undefined for anything else (a provider's own blob, a forgery). */
  open(value: string): { readonly node: string; readonly artifact: ReasoningArtifact } | undefined {
    const parts = value.split('.');
    if (parts.length !== 4 || parts[0] !== PREFIX) return undefined;
    const body = `${parts[0]}.${parts[1]}.${parts[2]}`;
    const expected = Buffer.from(this.mac(body));
    const given = Buffer.from(parts[3] as string);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
    try {
      const node = Buffer.from(parts[1] as string, 'base64url').toString('utf8');
      const artifact = JSON.parse(Buffer.from(parts[2] as string, 'base64url').toString('utf8')) as unknown;
      if (artifact === null || typeof artifact !== 'object' || Array.isArray(artifact)) return undefined;
      return { node, artifact: artifact as ReasoningArtifact };
    } catch {
      return undefined;
    }
  }

  private mac(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }
}
