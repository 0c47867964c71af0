import type { Usage } from '../../protocol/openai/chat-response-types.js';
import { isRecord } from '../../validation/is-record.js';

/** Usage in Anthropic's shape (inbound-protocols 1.6). */
export interface MessagesUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
  output_tokens: number;
  output_tokens_details?: { thinking_tokens: number };
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

/**
 * Chat usage → Anthropic usage (inbound-protocols 3.9): Anthropic's `input_tokens`
 * excludes cache reads and writes, chat's `prompt_tokens` includes them (rule A10). Writes
 * are 5-minute writes unless the node said how many were for an hour.
 */
export function toMessagesUsage(usage: Usage | undefined): MessagesUsage {
  const details = usage?.prompt_tokens_details ?? undefined;
  const read = count(details?.cached_tokens);
  const written = count(details?.cache_write_tokens);
  const written1h = Math.min(written, count(details?.cache_write_1h_tokens));
  const mapped: MessagesUsage = {
    input_tokens: Math.max(0, count(usage?.prompt_tokens) - read - written),
    cache_creation_input_tokens: written,
    cache_read_input_tokens: read,
    cache_creation: { ephemeral_5m_input_tokens: written - written1h, ephemeral_1h_input_tokens: written1h },
    output_tokens: count(usage?.completion_tokens),
  };
  const reasoning = usage?.completion_tokens_details?.reasoning_tokens;
  if (typeof reasoning === 'number') mapped.output_tokens_details = { thinking_tokens: count(reasoning) };
  return mapped;
}

/** `stop_reason` and `stop_sequence` of a reply. */
export interface MessagesStop {
  readonly stop_reason: string;
  readonly stop_sequence: string | null;
}

/**
 * Chat finish → Anthropic stop (inbound-protocols 3.10), in this order: `length` is
 * `max_tokens` (a cut-off call is not runnable), then any tool call is `tool_use` even when
 * the node said `stop` (rule A2), a matched stop sequence the node named (vLLM's
 * `stop_reason` string) is `stop_sequence`, a content filter is `refusal`, the rest `end_turn`.
 */
export function toMessagesStop(finishReason: string | undefined, calledTool: boolean, matched: unknown): MessagesStop {
  if (finishReason === 'length') return { stop_reason: 'max_tokens', stop_sequence: null };
  if (calledTool || finishReason === 'tool_calls' || finishReason === 'function_call')
    return { stop_reason: 'tool_use', stop_sequence: null };
  if (typeof matched === 'string' && matched !== '') return { stop_reason: 'stop_sequence', stop_sequence: matched };
  if (finishReason === 'content_filter') return { stop_reason: 'refusal', stop_sequence: null };
  return { stop_reason: 'end_turn', stop_sequence: null };
}

/** A tool call's arguments as the `input` object (`{}` when empty or not an object). */
export function toolInput(argumentsText: unknown): Record<string, unknown> {
  if (typeof argumentsText !== 'string' || argumentsText.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(argumentsText);
    return isRecord(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/** The message id the client sees for a request: `msg_` + the request id (one id everywhere, rule C3). */
export function messageIdFor(requestId: string): string {
  return `msg_${requestId}`;
}
