import { gatewayError } from '../../errors/gateway-error.js';
import type { ChatCompletion } from '../../protocol/openai/chat-response-types.js';
import { emptySummary, type CallContext, type MappedCompletion } from '../types.js';
import { normalizeReasoningField } from './normalize-reasoning-field.js';

/**
 * Maps a node's `chat.completion`. The node's own bytes go to the client unless a field
 * had to be renamed, so most replies are parsed once and never re-serialized.
 */
export function fromUpstream(bodyText: string, context: CallContext): MappedCompletion {
  let completion: ChatCompletion;
  try {
    completion = JSON.parse(bodyText) as ChatCompletion;
  } catch {
    throw invalidReply(context, 'the reply is not JSON');
  }
  if (completion === null || typeof completion !== 'object' || !Array.isArray(completion.choices)) {
    throw invalidReply(context, 'the reply has no choices');
  }
  const summary = emptySummary();
  let changed = false;
  for (const choice of completion.choices) {
    const message = choice?.message;
    if (message === null || typeof message !== 'object') continue;
    if (normalizeReasoningField(message)) changed = true;
    if (typeof message.content === 'string') summary.contentCharacters += message.content.length;
    if (typeof message.reasoning_content === 'string') summary.reasoningCharacters += message.reasoning_content.length;
    summary.finishReason ??= choice.finish_reason ?? undefined;
  }
  summary.usage = completion.usage ?? undefined;
  return { body: changed ? JSON.stringify(completion) : bodyText, summary };
}

function invalidReply(context: CallContext, reason: string) {
  return gatewayError('bad_gateway', { params: { reason: `node ${context.node.id}: ${reason}` }, upstream: { nodeId: context.node.id } });
}
