import { invalidReply } from '../../upstream/node-failure.js';
import { isRecord } from '../translate-content.js';
import { isAnthropicMessage } from '../../validation/generated/validate-node-replies.js';
import { parseNodeObject, translatedCompletion } from '../translated-reply.js';
import type { CallContext, MappedCompletion } from '../types.js';
import { mapStopReason } from './map-stop-reason.js';
import { mapUsage } from './map-usage.js';

/**
 * Anthropic `message` → OpenAI `chat.completion` (provider-protocols 4.4, 6.2): text
 * blocks become `content`, thinking blocks `reasoning_content` (before the answer), and
 * `tool_use` blocks `tool_calls`. Thinking and redacted thinking blocks are also kept,
 * verbatim with their signatures, in `message.thinking_blocks` so the client can send them
 * back in the next turn (docs/protocols.md, reasoning). A refused reply (`stop_reason: "refusal"`)
 * also carries its text as `message.refusal`.
 */
export function fromUpstream(bodyText: string, context: CallContext): MappedCompletion {
  const reply = parseNodeObject(bodyText, context, 'reply');
  if (!isAnthropicMessage(reply)) throw invalidReply(context.node.id, 'the reply is not an Anthropic message');

  let text = '';
  let reasoning = '';
  const thinkingBlocks: Array<Record<string, unknown>> = [];
  const toolCalls: Array<Record<string, unknown>> = [];
  for (const block of reply.content) {
    if (!isRecord(block)) continue;
    if (block.type === 'text' && typeof block.text === 'string') text += block.text;
    else if (block.type === 'thinking' && typeof block.thinking === 'string') {
      reasoning += block.thinking;
      thinkingBlocks.push({ type: 'thinking', thinking: block.thinking, signature: block.signature });
    } else if (block.type === 'redacted_thinking') {
      thinkingBlocks.push({ type: 'redacted_thinking', data: block.data });
    } else if (block.type === 'tool_use') {
      toolCalls.push({
        id: block.id,
        type: 'function',
        function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
      });
    }
  }
  const usage = reply.usage ?? {};
  const mapped = translatedCompletion(
    {
      id: reply.id,
      text,
      reasoning,
      toolCalls,
      finishReason: mapStopReason(reply.stop_reason),
      ...(reply.stop_reason === 'refusal' ? { refusal: text } : {}),
      usage: mapUsage(usage, thinkingBlocks.length > 0),
      ...(thinkingBlocks.length > 0 ? { extra: { thinking_blocks: thinkingBlocks } } : {}),
    },
    context,
  );
  // The tier the node served in: priced when the model lists it (docs/keys-and-money.md).
  if (typeof usage.service_tier === 'string') mapped.summary.serviceTier = usage.service_tier;
  return mapped;
}
