import { isRecord } from '../../validation/is-record.js';

/** What a translated node's reasoning needs to come back to it: its text, or its signed blocks. */
export interface ReasoningArtifact {
  /** Plain reasoning text (chat nodes that take `reasoning_content` back). */
  readonly reasoning_content?: string;
  /** Anthropic thinking / redacted-thinking blocks as the chat form carries them. */
  readonly thinking_blocks?: readonly Record<string, unknown>[];
}

/** The artifact a gateway envelope's payload holds: its known fields, each of its type. */
export function reasoningArtifactOf(payload: Record<string, unknown>): ReasoningArtifact {
  const text = payload.reasoning_content;
  const blocks = Array.isArray(payload.thinking_blocks) ? payload.thinking_blocks.filter(isRecord) : undefined;
  return {
    ...(typeof text === 'string' ? { reasoning_content: text } : {}),
    ...(blocks === undefined ? {} : { thinking_blocks: blocks }),
  };
}
