import type { ChatCompletion, Usage } from '../../protocol/openai/chat-response-types.js';
import type { ThinkingSignatures } from './thinking-signatures.js';
import { messageIdFor, toMessagesStop, toMessagesUsage, toolInput } from './usage-and-stop.js';
import { isRecord } from '../../validation/is-record.js';

/** What the reply mapper needs besides the reply. */
export interface MessagesReplyContext {
  readonly requestId: string;
  /** The node that answered: its id goes into the signature envelope of any thinking. */
  readonly node: string | undefined;
  /** The usage booked for the reply (the node's, or an estimate when it sent none). */
  readonly usage: Usage;
  readonly envelopes: ThinkingSignatures;
}

type Block = Record<string, unknown>;

/** Gemini thought signatures that rode on the tool calls (`extra_content.google.thought_signature`), by call id. */
function toolSignatures(calls: readonly Record<string, unknown>[]): Record<string, string> | undefined {
  let signatures: Record<string, string> | undefined;
  for (const call of calls) {
    const google = isRecord(call.extra_content) ? call.extra_content.google : undefined;
    if (typeof call.id === 'string' && isRecord(google) && typeof google.thought_signature === 'string') {
      signatures ??= {};
      signatures[call.id] = google.thought_signature;
    }
  }
  return signatures;
}

/**
 * The thinking block of reasoning a non-Anthropic node made: its text, and as signature
 * the gateway's envelope naming the node (and carrying Gemini signatures) so the next
 * turn can give it back to that node (inbound-protocols 3.8).
 */
export function thinkingBlock(
  text: string,
  node: string | undefined,
  signatures: Record<string, string> | undefined,
  envelopes: ThinkingSignatures,
): Block {
  const signature =
    node === undefined
      ? ''
      : envelopes.seal(signatures === undefined ? { node } : { node, toolSignatures: signatures });
  return { type: 'thinking', thinking: text, signature };
}

/**
 * An internal `chat.completion` → an Anthropic `message` (inbound-protocols 3.2): the
 * thinking block first, then the text (none when empty), then one `tool_use` block per
 * call with its arguments parsed; `stop_reason` never null (3.10), usage per 3.9.
 */
export function toMessagesReply(body: string, context: MessagesReplyContext): string {
  const completion = JSON.parse(body) as ChatCompletion;
  const choice = completion.choices[0];
  const message = choice?.message;
  const calls = Array.isArray(message?.tool_calls) ? message.tool_calls.filter(isRecord) : [];
  const content: Block[] = [];
  const reasoning = typeof message?.reasoning_content === 'string' ? message.reasoning_content : '';
  const signatures = toolSignatures(calls);
  if (reasoning !== '' || signatures !== undefined)
    content.push(thinkingBlock(reasoning, context.node, signatures, context.envelopes));
  const text = typeof message?.content === 'string' ? message.content : '';
  if (text !== '') content.push({ type: 'text', text });
  for (const call of calls) {
    const fn = isRecord(call.function) ? call.function : {};
    content.push({
      type: 'tool_use',
      id: typeof call.id === 'string' && call.id !== '' ? call.id : `toolu_${context.requestId}_${content.length}`,
      name: typeof fn.name === 'string' ? fn.name : '',
      input: toolInput(fn.arguments),
    });
  }
  const stop = toMessagesStop(choice?.finish_reason ?? undefined, calls.length > 0, choice?.stop_reason);
  return JSON.stringify({
    id: messageIdFor(context.requestId),
    type: 'message',
    role: 'assistant',
    model: completion.model,
    content,
    stop_reason: stop.stop_reason,
    stop_sequence: stop.stop_sequence,
    stop_details: null,
    container: null,
    usage: toMessagesUsage(context.usage),
  });
}
