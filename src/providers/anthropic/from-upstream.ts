import type { ChatCompletion, ChatCompletionMessage } from '../../protocol/openai/chat-response-types.js';
import { invalidReply } from '../../upstream/node-failure.js';
import { isRecord } from '../translate-content.js';
import { emptySummary, type CallContext, type MappedCompletion } from '../types.js';
import { mapStopReason } from './map-stop-reason.js';
import { mapUsage, type AnthropicUsage } from './map-usage.js';

/**
 * Anthropic `message` → OpenAI `chat.completion` (provider-protocols 4.4, 6.2): text
 * blocks become `content`, thinking blocks `reasoning_content` (before the answer), and
 * `tool_use` blocks `tool_calls`. Thinking and redacted thinking blocks are also kept,
 * verbatim with their signatures, in `message.thinking_blocks` so the client can send them
 * back in the next turn (README "Reasoning").
 */
export function fromUpstream(bodyText: string, context: CallContext): MappedCompletion {
  let reply: unknown;
  try {
    reply = JSON.parse(bodyText);
  } catch {
    throw invalidReply(context.node.id, 'the reply is not JSON');
  }
  if (!isRecord(reply) || !Array.isArray(reply.content)) throw invalidReply(context.node.id, 'the reply is not an Anthropic message');

  let text = '';
  let reasoning = '';
  const thinkingBlocks: Array<Record<string, unknown>> = [];
  const toolCalls: Array<Record<string, unknown>> = [];
  for (const block of reply.content as unknown[]) {
    if (!isRecord(block)) continue;
    if (block.type === 'text' && typeof block.text === 'string') text += block.text;
    else if (block.type === 'thinking' && typeof block.thinking === 'string') {
      reasoning += block.thinking;
      thinkingBlocks.push({ type: 'thinking', thinking: block.thinking, signature: block.signature });
    } else if (block.type === 'redacted_thinking') {
      thinkingBlocks.push({ type: 'redacted_thinking', data: block.data });
    } else if (block.type === 'tool_use') {
      toolCalls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } });
    }
  }
  const content = text === '' && toolCalls.length > 0 ? null : text;
  // reasoning_content first: the answer follows the reasoning in the JSON too.
  const message: ChatCompletionMessage = reasoning === '' ? { role: 'assistant', content } : { role: 'assistant', reasoning_content: reasoning, content };
  if (thinkingBlocks.length > 0) message.thinking_blocks = thinkingBlocks;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;

  const finishReason = mapStopReason(reply.stop_reason);
  const usage = mapUsage(isRecord(reply.usage) ? (reply.usage as AnthropicUsage) : {}, thinkingBlocks.length > 0);
  const completion: ChatCompletion = {
    id: typeof reply.id === 'string' ? reply.id : `chatcmpl-${context.requestId}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: context.clientModel,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
    usage,
  };
  const summary = emptySummary();
  summary.usage = usage;
  summary.finishReason = finishReason;
  summary.contentCharacters = text.length;
  summary.reasoningCharacters = reasoning.length;
  return { body: JSON.stringify(completion), summary };
}
