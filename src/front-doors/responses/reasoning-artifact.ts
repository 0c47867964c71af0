/** What a translated node's reasoning needs to come back to it: its text, or its signed blocks. */
export interface ReasoningArtifact {
  /** Plain reasoning text (chat nodes that take `reasoning_content` back). */
  readonly reasoning_content?: string;
  /** Anthropic thinking / redacted-thinking blocks as the chat form carries them. */
  readonly thinking_blocks?: readonly Record<string, unknown>[];
}
