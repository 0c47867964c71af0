import { isRecord } from '../../validation/is-record.js';
/** Message fields OpenAI's schema types without null that OpenAI-compatible servers (vLLM) send as null. */
const MESSAGE_NON_NULLABLE = ['annotations', 'function_call', 'tool_calls'] as const;
/** The same for the reply and its usage. */
const REPLY_NON_NULLABLE = ['system_fingerprint'] as const;
const USAGE_NON_NULLABLE = ['prompt_tokens_details', 'completion_tokens_details'] as const;

function dropNulls(target: Record<string, unknown>, fields: readonly string[]): boolean {
  let changed = false;
  for (const field of fields) {
    if (field in target && target[field] === null) {
      delete target[field];
      changed = true;
    }
  }
  return changed;
}

/**
 * Makes a node's `chat.completion` one OpenAI's schema accepts (issue 18: strictly typed
 * clients): adds what it requires and the node left out (`message.refusal`,
 * `choices[].logprobs`, both null) and removes the nulls some servers send for fields that
 * are absent-or-set in OpenAI's schema (vLLM: `annotations`, `function_call`,
 * `system_fingerprint`, `usage.prompt_tokens_details`). Mutates `reply`; returns whether it
 * changed anything (a reply from OpenAI itself changes nothing and keeps its bytes).
 */
export function completeReplyFields(reply: Record<string, unknown>): boolean {
  let changed = dropNulls(reply, REPLY_NON_NULLABLE);
  if (isRecord(reply.usage) && dropNulls(reply.usage, USAGE_NON_NULLABLE)) changed = true;
  if (!Array.isArray(reply.choices)) return changed;
  const choices: readonly unknown[] = reply.choices;
  for (const choice of choices) {
    if (!isRecord(choice)) continue;
    if (!('logprobs' in choice)) {
      choice.logprobs = null;
      changed = true;
    }
    const message = choice.message;
    if (!isRecord(message)) continue;
    if (!('refusal' in message)) {
      message.refusal = null;
      changed = true;
    }
    if (dropNulls(message, MESSAGE_NON_NULLABLE)) changed = true;
  }
  return changed;
}
