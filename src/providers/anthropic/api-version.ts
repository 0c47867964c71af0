import type { NodeConfig } from '../../config/gateway-config.js';
import type { AnthropicVersion } from '../../config/wire-protocols.js';
import { invalidParameter } from '../../errors/gateway-error.js';
import { isRecord } from '../../validation/is-record.js';

/**
 * The first Anthropic API version that refuses the sampling fields (`temperature`, `top_p`,
 * `top_k`, at any value), a `document` block in an assistant turn and `citations` on a text
 * block of a user turn, with a 400.
 */
const STRICT_VERSION: AnthropicVersion = '2026-10-21';

/** The sampling fields a node on STRICT_VERSION or later refuses. */
export const SAMPLING_FIELDS = ['temperature', 'top_p', 'top_k'] as const;

/** Whether the node speaks an API version that refuses sampling fields and the content `refusedContent` finds. */
export function isStrictVersion(node: Pick<NodeConfig, 'anthropicVersion'>): boolean {
  return node.anthropicVersion >= STRICT_VERSION;
}

/**
 * The 400 validation_failed for the first content of a Messages request's `messages` that
 * API version 2026-10-21 refuses, naming its param (an assistant `document` block, non-empty
 * `citations` on a user text block); undefined when there is none. Reads only block types.
 */
export function refusedContent(messages: unknown): ReturnType<typeof invalidParameter> | undefined {
  if (!Array.isArray(messages)) return undefined;
  for (let index = 0; index < messages.length; index++) {
    const message: unknown = messages[index];
    if (!isRecord(message) || !Array.isArray(message.content)) continue;
    const content: unknown[] = message.content;
    for (let at = 0; at < content.length; at++) {
      const block = content[at];
      if (!isRecord(block)) continue;
      const param = `messages[${index}].content[${at}]`;
      if (message.role === 'assistant' && block.type === 'document')
        return invalidParameter(`${param}.type`, 'refused_by_api_version', {
          what: 'a "document" block in an assistant turn',
          version: STRICT_VERSION,
        });
      if (
        message.role === 'user' &&
        block.type === 'text' &&
        Array.isArray(block.citations) &&
        block.citations.length > 0
      )
        return invalidParameter(`${param}.citations`, 'refused_by_api_version', {
          what: 'citations on a text block in a user turn',
          version: STRICT_VERSION,
        });
    }
  }
  return undefined;
}
