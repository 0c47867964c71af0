import { invalidReply } from '../../upstream/node-failure.js';
import { isRecord } from '../../validation/is-record.js';
import { nodeUsage } from '../node-usage.js';
import { parseNodeObject } from '../translated-reply.js';
import { isChatReply } from '../../validation/generated/validate-node-replies.js';
import { emptySummary, type CallContext, type MappedCompletion } from '../types.js';
import { completeReplyFields } from './complete-reply-fields.js';
import { normalizeReasoningField } from './normalize-reasoning-field.js';
import { modelField, replaceModelField } from '../replace-model-field.js';

/**
 * Maps a node's `chat.completion`. The node's own bytes go to the client unless a field
 * had to change (reasoning field name; fields OpenAI's schema requires or types without
 * null, see complete-reply-fields.ts; `model` is always the id the client asked for), so
 * most replies are parsed once and never re-serialized (a different model id is swapped
 * in the text).
 */
export function fromUpstream(bodyText: string, context: CallContext): MappedCompletion {
  const completion = parseNodeObject(bodyText, context, 'reply');
  if (!isChatReply(completion)) {
    const reason = Array.isArray(completion.choices)
      ? 'the reply is not a chat.completion'
      : 'the reply has no choices';
    throw invalidReply(context.node.id, reason);
  }
  const summary = emptySummary();
  let changed = completeReplyFields(completion);
  for (const choice of completion.choices) {
    const message = choice.message;
    if (!isRecord(message)) continue;
    if (normalizeReasoningField(message)) changed = true;
    if (typeof message.content === 'string') summary.contentCharacters += message.content.length;
    if (typeof message.reasoning_content === 'string') summary.reasoningCharacters += message.reasoning_content.length;
    summary.finishReason ??= choice.finish_reason ?? undefined;
  }
  summary.usage = nodeUsage(completion.usage);
  if (typeof completion.service_tier === 'string') summary.serviceTier = completion.service_tier;
  if (completion.model === context.clientModel && !changed) return { body: bodyText, summary };
  // Only the model id differs (the usual case: the node names a dated snapshot): swap
  // that field in the node's text rather than serializing the whole reply again.
  const body =
    changed || typeof completion.model !== 'string'
      ? undefined
      : replaceModelField(bodyText, modelField(completion.model), modelField(context.clientModel));
  completion.model = context.clientModel;
  return { body: body ?? JSON.stringify(completion), summary };
}
