import type { ModelConfig } from '../config/gateway-config.js';
import { validationFailed } from '../errors/gateway-error.js';
import type { ChatRequest } from '../protocol/openai/chat-request-schema.js';
import { isRecord } from '../validation/is-record.js';

/**
 * What a front door's internal request leaves out of the client's request although a node
 * serving the door's protocol natively is sent it as it came, and charges for it: the
 * door sets it on the request (GatewayRequest.leftOut), the reservation reads it.
 */
export interface LeftOut {
  /**
   * Inputs the gateway cannot size: their content is the node's (an `item_reference` to an
   * item not stored here, an Anthropic block naming a file by id or a document by URL).
   */
  readonly unresolved: number;
  /** Content the client sent that the internal form has no place for (hosted-tool turns, foreign reasoning, server-tool results), as JSON text. */
  readonly text: readonly string[];
  /**
   * The client's request marks prompt-cache breakpoints the internal form dropped (an
   * Anthropic node, reached natively, gets them): the reservation prices the prompt as
   * for the markers (estimate-request.ts marksCacheBreakpoints).
   */
  readonly cacheBreakpoints?: boolean;
}

/** Nothing left out. */
export const NOTHING_LEFT_OUT: LeftOut = { unresolved: 0, text: [] };

/** Whether a chat content part is a file sent by id: its content is the node's, its size unknown here. */
function isFileById(part: unknown): boolean {
  if (!isRecord(part) || part.type !== 'file' || !isRecord(part.file)) return false;
  return typeof part.file.file_id === 'string' && part.file.file_data === undefined;
}

/**
 * The inputs of a request whose size the gateway cannot know: those its front door left
 * out, and `file` parts that name a file by id (`file_id`) instead of carrying it.
 */
export function unresolvedInputsOf(request: ChatRequest, leftOut: LeftOut = NOTHING_LEFT_OUT): number {
  let count = leftOut.unresolved;
  for (const message of request.messages) {
    const content: unknown = message.content;
    if (!Array.isArray(content)) continue;
    for (const part of content) if (isFileById(part)) count++;
  }
  return count;
}

/**
 * The prompt tokens a request's reservation is priced on (docs/security-and-limits.md,
 * "Input the gateway cannot size"): the gateway's count of the internal request, plus its
 * count of what the front door left out as text; when the node may be sent input the
 * gateway cannot size, plus the model's `unresolved_input_tokens` for each (default: its
 * `context_length`), within the `context_length` (no node takes a longer prompt). A model
 * with neither has no bound to reserve: 400 input_size_unbounded. Only the reservation
 * reads this; the settlement books what the node reports.
 */
export function reservedPromptTokens(
  request: ChatRequest,
  model: ModelConfig,
  counted: number,
  count: (text: string) => number,
  leftOut: LeftOut = NOTHING_LEFT_OUT,
): number {
  let seen = counted;
  for (const text of leftOut.text) seen += count(text);
  const unresolved = unresolvedInputsOf(request, leftOut);
  if (unresolved === 0) return seen;
  const perInput = model.unresolvedInputTokens ?? model.contextLength;
  if (perInput === undefined) throw validationFailed(null, 'input_size_unbounded', { model: model.id });
  const bound = seen + unresolved * perInput;
  return model.contextLength === undefined ? bound : Math.max(seen, Math.min(bound, model.contextLength));
}
