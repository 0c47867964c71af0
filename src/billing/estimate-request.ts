import type { ModelConfig, ReasoningEffort } from '../config/gateway-config.js';
import type { ChatRequest } from '../protocol/openai/chat-request-schema.js';
import type { LeftOut } from './unresolved-inputs.js';
import { thinkingBudgetOf } from '../protocol/openai/thinking-budget.js';
import { fieldOf } from '../validation/field-of.js';

/** Tokens OpenAI's chat format adds around each message and to prime the reply. */
const TOKENS_PER_MESSAGE = 4;
const TOKENS_PER_PROMPT = 3;
/** An image part, counted at the low-detail price (high detail can cost more; see README). */
const TOKENS_PER_IMAGE = 85;
/** Output reserved when neither the request nor the model caps it. */
export const DEFAULT_OUTPUT_RESERVE = 4096;
/** Answer tokens on top of the thinking budget when the client names no cap (`reasoning.answer_tokens`' default). */
export const DEFAULT_ANSWER_TOKENS = 4096;

/**
 * A document (`file` part) per byte: PDF text is compressed, a token's few characters take
 * a byte or two, and nodes add an image of every page; counted high rather than low.
 */
const BYTES_PER_FILE_TOKEN = 4;
/** A file sent by id (its size unknown here): one PDF page's worth, text and page image. */
const TOKENS_PER_FILE_REFERENCE = 3000;
/**
 * Audio (`input_audio`) per byte: Gemini counts 32 tokens a second; WAV at 16 kHz, 16-bit
 * mono is 32,000 bytes a second, MP3 at 128 kbit/s 16,000.
 */
const BYTES_PER_AUDIO_TOKEN: Readonly<Record<string, number>> = { wav: 1000, mp3: 500 };
const DEFAULT_BYTES_PER_AUDIO_TOKEN = 500;

/** Bytes of base64 text (a data URL's or bare), decoded. */
function base64Bytes(text: string): number {
  const comma = text.startsWith('data:') ? text.indexOf(',') + 1 : 0;
  return Math.floor(((text.length - comma) * 3) / 4);
}

/** Tokens of a `file` or `input_audio` part by its size; 0 for other parts. */
function mediaTokens(part: unknown): number {
  const type = fieldOf(part, 'type');
  if (type === 'file') {
    const data = fieldOf(fieldOf(part, 'file'), 'file_data');
    return typeof data === 'string' ? Math.ceil(base64Bytes(data) / BYTES_PER_FILE_TOKEN) : TOKENS_PER_FILE_REFERENCE;
  }
  if (type === 'input_audio') {
    const audio = fieldOf(part, 'input_audio');
    const data = fieldOf(audio, 'data');
    const format = fieldOf(audio, 'format');
    const perToken =
      (typeof format === 'string' ? BYTES_PER_AUDIO_TOKEN[format] : undefined) ?? DEFAULT_BYTES_PER_AUDIO_TOKEN;
    return typeof data === 'string' ? Math.ceil(base64Bytes(data) / perToken) : 0;
  }
  return 0;
}

function contentTokens(content: unknown, count: (text: string) => number): number {
  if (typeof content === 'string') return count(content);
  if (!Array.isArray(content)) return 0;
  let tokens = 0;
  for (const part of content) {
    const text = fieldOf(part, 'text');
    if (typeof text === 'string') tokens += count(text);
    else if (fieldOf(part, 'type') === 'image_url') tokens += TOKENS_PER_IMAGE;
    else tokens += mediaTokens(part);
  }
  return tokens;
}

/**
 * Whether the request marks prompt-cache breakpoints (`cache_control` on a message, a
 * content part or a tool): then prompt tokens may be billed at a cache-write price, and
 * the reservation counts them at the dearest (PRODUCT.md decision 21). Markers the
 * internal form dropped count too (`leftOut`).
 */
export function marksCacheBreakpoints(request: ChatRequest, leftOut?: LeftOut): boolean {
  // The internal form dropped the client's markers, but an Anthropic node reached natively gets them.
  if (leftOut?.cacheBreakpoints === true) return true;
  const marked = (value: unknown): boolean => fieldOf(value, 'cache_control') !== undefined;
  for (const message of request.messages) {
    if (marked(message)) return true;
    const content: unknown = message.content;
    if (Array.isArray(content) && content.some(marked)) return true;
  }
  return Array.isArray(request.tools) && request.tools.some(marked);
}

/** Prompt tokens of a request, counted with the tokenizer (message text, names, tool-call arguments). */
export function countPromptTokens(request: ChatRequest, count: (text: string) => number): number {
  let tokens = TOKENS_PER_PROMPT;
  for (const message of request.messages) {
    const fields: Record<string, unknown> = message;
    tokens += TOKENS_PER_MESSAGE + contentTokens(fields.content, count);
    if (typeof fields.name === 'string') tokens += count(fields.name);
    if (Array.isArray(fields.tool_calls)) tokens += count(JSON.stringify(fields.tool_calls));
  }
  if (Array.isArray(request.tools)) tokens += count(JSON.stringify(request.tools));
  return tokens;
}

/**
 * The output cap of one choice: what the reservation is priced on and what the node is sent
 * (PRODUCT.md decision 20). Computed once per request, so the two never disagree.
 */
export interface OutputCap {
  /** Output tokens one choice may produce. */
  readonly tokens: number;
  /**
   * True when nothing but the model's `context_length` bounds the reply: `tokens` is what the
   * context leaves by the gateway's count of the prompt, and the node's own context limit
   * enforces it. Nodes that take an optional cap are sent none then: a node counting the
   * prompt a few tokens longer than our tokenizer would refuse that exact number (vLLM: 400).
   */
  readonly contextBound: boolean;
}

/**
 * The most output tokens one choice of the request can produce: its own cap (or the model's
 * `default_max_tokens`) clamped to the model's output cap, else the model's output cap, else
 * what the context leaves, else a default reserve. The reservation multiplies it by `n`.
 *
 * A reasoning request without a cap of the client's leaves room for its whole thinking
 * budget (the effort's, or the client's `reasoning.max_tokens`) plus `answer_tokens`, within
 * the model's output cap and context (PRODUCT.md decision 19): so each higher effort reaches
 * a budget-style node with a larger budget, and the reservation is priced on that same cap.
 */
export function outputCapOf(
  request: ChatRequest,
  model: ModelConfig,
  promptTokens: number,
  effort?: ReasoningEffort,
): OutputCap {
  const clientCap = request.max_completion_tokens ?? request.max_tokens ?? undefined;
  const asked = clientCap ?? model.defaultMaxTokens;
  const contextLeft = model.contextLength === undefined ? undefined : Math.max(1, model.contextLength - promptTokens);
  const modelCap = model.maxOutputTokens ?? contextLeft;
  const thinking = clientCap === undefined ? (thinkingBudgetOf(request, model.reasoning, effort) ?? 0) : 0;
  if (thinking > 0) {
    const withoutThinking = model.defaultMaxTokens ?? model.maxOutputTokens ?? DEFAULT_OUTPUT_RESERVE;
    const tokens = Math.max(withoutThinking, thinking + (model.reasoning?.answerTokens ?? DEFAULT_ANSWER_TOKENS));
    if (modelCap === undefined || tokens <= modelCap) return { tokens, contextBound: false };
    return { tokens: modelCap, contextBound: model.maxOutputTokens === undefined };
  }
  if (asked !== undefined)
    return { tokens: modelCap === undefined ? asked : Math.min(asked, modelCap), contextBound: false };
  if (model.maxOutputTokens !== undefined) return { tokens: model.maxOutputTokens, contextBound: false };
  if (contextLeft !== undefined) return { tokens: contextLeft, contextBound: true };
  return { tokens: DEFAULT_OUTPUT_RESERVE, contextBound: false };
}
