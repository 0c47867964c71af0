import type { ModelConfig } from '../config/gateway-config.js';
import { validationFailed } from '../errors/gateway-error.js';
import type { ChatRequest } from '../protocol/openai/chat-request-schema.js';
import { isRecord } from '../providers/translate-content.js';

/**
 * Set by a front door on an internal request: how many of the client's inputs a node
 * serving the door's protocol natively is sent as they came, but the internal form leaves
 * out because the gateway cannot read them (an `item_reference` to an item not stored
 * here, an Anthropic block naming a file by id). A symbol, so it is never serialized into
 * a node's request; object spreads keep it.
 */
const UNRESOLVED_INPUTS = Symbol('unresolved inputs');

type Marked = { [UNRESOLVED_INPUTS]?: number };

/** Marks `count` inputs the internal request leaves out and the gateway cannot size (none: nothing is marked). */
export function markUnresolvedInputs(request: ChatRequest, count: number): void {
  if (count > 0) (request as Marked)[UNRESOLVED_INPUTS] = count;
}

/** Whether a chat content part is a file sent by id: its content is the node's, its size unknown here. */
function isFileById(part: unknown): boolean {
  if (!isRecord(part) || part.type !== 'file' || !isRecord(part.file)) return false;
  return typeof part.file.file_id === 'string' && part.file.file_data === undefined;
}

/**
 * The inputs of a request whose size the gateway cannot know: those its front door marked,
 * and `file` parts that name a file by id (`file_id`) instead of carrying it.
 */
export function unresolvedInputsOf(request: ChatRequest): number {
  let count = (request as Marked)[UNRESOLVED_INPUTS] ?? 0;
  for (const message of request.messages) {
    const content: unknown = message.content;
    if (!Array.isArray(content)) continue;
    for (const part of content) if (isFileById(part)) count++;
  }
  return count;
}

/**
 * The prompt tokens a request's reservation is priced on (docs/security-and-limits.md,
 * "Input the gateway cannot size"): the gateway's count when it sees the whole prompt;
 * else the count plus the model's `unresolved_input_tokens` for each input it cannot size
 * (default: its `context_length`), within the `context_length` (no node takes a longer
 * prompt). A model with neither has no bound to reserve: 400 input_size_unbounded. Only
 * the reservation reads this; the settlement books what the node reports.
 */
export function reservedPromptTokens(request: ChatRequest, model: ModelConfig, counted: number): number {
  const unresolved = unresolvedInputsOf(request);
  if (unresolved === 0) return counted;
  const perInput = model.unresolvedInputTokens ?? model.contextLength;
  if (perInput === undefined) throw validationFailed(null, 'input_size_unbounded', { model: model.id });
  const bound = counted + unresolved * perInput;
  return model.contextLength === undefined ? bound : Math.max(counted, Math.min(bound, model.contextLength));
}
