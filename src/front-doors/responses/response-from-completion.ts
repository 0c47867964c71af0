import type { ChatCompletion, Usage } from '../../protocol/openai/chat-response-types.js';
import { messageItem, reasoningArtifact, reasoningItem, toolCallItem, type OutputShaping } from './output-items.js';
import { outputItemId } from './response-ids.js';
import { responseUsage, terminalStatus, type ResponseObject } from './response-object.js';
import { isRecord } from '../../validation/is-record.js';

type Item = Record<string, unknown>;

/**
 * A `chat.completion` as a Response (inbound-protocols 3.6): one reasoning item when the
 * node reasoned, one message item when it wrote text or refused, one item per tool call,
 * in that order; usage per 3.9 (the booked usage), status per 3.10.
 */
export function responseFromCompletion(
  completion: ChatCompletion,
  usage: Usage,
  response: ResponseObject,
  shaping: OutputShaping,
  node: string | undefined,
): Item {
  const choice = completion.choices[0];
  const message = choice?.message;
  const output: Item[] = [];
  if (message !== undefined) {
    const reasoning = typeof message.reasoning_content === 'string' ? message.reasoning_content : '';
    const blocks = Array.isArray(message.thinking_blocks) ? message.thinking_blocks.filter(isRecord) : undefined;
    if (reasoning !== '' || blocks !== undefined) {
      output.push(reasoningItem(shaping, output.length, reasoning, reasoningArtifact(reasoning, blocks), node));
    }
    const text = typeof message.content === 'string' && message.content !== '' ? message.content : undefined;
    const refusal = typeof message.refusal === 'string' ? message.refusal : undefined;
    if (text !== undefined || refusal !== undefined) {
      output.push(messageItem(outputItemId('msg', shaping.responseId, output.length), text, refusal, 'completed'));
    }
    const calls = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isRecord) : [];
    calls.forEach((call, callIndex) => {
      const fn: Item = isRecord(call.function) ? call.function : {};
      const callId =
        typeof call.id === 'string' && call.id !== '' ? call.id : `call_${shaping.responseId.slice(5)}_${callIndex}`;
      output.push(
        toolCallItem(
          shaping,
          output.length,
          callId,
          String(fn.name ?? ''),
          typeof fn.arguments === 'string' ? fn.arguments : '{}',
          'completed',
        ),
      );
    });
  }
  return response.finished(output, responseUsage(usage), terminalStatus(choice?.finish_reason));
}
