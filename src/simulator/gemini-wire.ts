import type { ChatStreamEvents } from './chat-stream-events.js';
import { fnv1aHash } from './fnv1a-hash.js';
import type { CompletionPlan } from './plan-completion.js';
import { REASONING_TOKENS_BY_EFFORT } from './plan-completion.js';
import { invalidRequest } from './protocol-errors.js';
import { reasoningTokensForBudget } from './anthropic-wire.js';

/**
 * The Gemini API as the simulator speaks it (provider-protocols 5): `thinkingConfig`
 * with a budget or a level (not both), `includeThoughts` deciding whether thought parts
 * come back (thinking is counted either way), `maxOutputTokens` shared by thoughts and
 * answer; replies as one `GenerateContentResponse` or as SSE events of new parts only,
 * with the finish reason and full usage on the last one and no end marker.
 */

/** What the simulator reads from a generateContent request. */
export interface GeminiRequest {
  model: string;
  /** Contents and system instruction as `{content}` records, for the seed and the prompt count. */
  messages: unknown[];
  maxTokens: number | undefined;
  reasoningTokens: number;
  includeThoughts: boolean;
}

const LEVEL_TOKENS: Readonly<Record<string, number>> = {
  MINIMAL: REASONING_TOKENS_BY_EFFORT.minimal,
  LOW: REASONING_TOKENS_BY_EFFORT.low,
  MEDIUM: REASONING_TOKENS_BY_EFFORT.medium,
  HIGH: REASONING_TOKENS_BY_EFFORT.high,
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A Gemini `Content` as a `{content: [{type: "text", text}]}` record the simulator's tokenizer reads. */
function asMessage(content: unknown): unknown {
  const parts = isRecord(content) && Array.isArray(content.parts) ? content.parts : [];
  return { content: parts.filter((part) => isRecord(part) && typeof part.text === 'string').map((part) => ({ type: 'text', text: (part as { text: string }).text })) };
}

export function parseGeminiRequest(model: string, body: unknown): GeminiRequest {
  if (!isRecord(body)) throw invalidRequest('Invalid JSON payload received.');
  if (!Array.isArray(body.contents) || body.contents.length === 0) throw invalidRequest('* GenerateContentRequest.contents: contents is not specified');
  body.contents.forEach((content, index) => {
    if (!isRecord(content) || (content.role !== undefined && content.role !== 'user' && content.role !== 'model') || !Array.isArray(content.parts)) {
      throw invalidRequest(`* GenerateContentRequest.contents[${index}]: a content needs parts and the role user or model`);
    }
  });
  const generation = isRecord(body.generationConfig) ? body.generationConfig : {};
  const maxTokens = typeof generation.maxOutputTokens === 'number' ? generation.maxOutputTokens : undefined;
  const thinking = isRecord(generation.thinkingConfig) ? generation.thinkingConfig : {};
  if (thinking.thinkingBudget !== undefined && thinking.thinkingLevel !== undefined) {
    throw invalidRequest('You can only set only one of thinking budget and thinking level.');
  }
  let reasoningTokens = 0;
  if (typeof thinking.thinkingBudget === 'number') {
    reasoningTokens = thinking.thinkingBudget === -1 ? REASONING_TOKENS_BY_EFFORT.medium : reasoningTokensForBudget(Math.max(0, thinking.thinkingBudget));
  } else if (typeof thinking.thinkingLevel === 'string') {
    const tokens = LEVEL_TOKENS[thinking.thinkingLevel.toUpperCase()];
    if (tokens === undefined) throw invalidRequest(`Invalid value at 'generation_config.thinking_config.thinking_level' (${thinking.thinkingLevel})`);
    reasoningTokens = tokens;
  }
  const system = isRecord(body.systemInstruction) ? [asMessage(body.systemInstruction)] : [];
  return {
    model,
    messages: [...system, ...body.contents.map(asMessage)],
    maxTokens,
    reasoningTokens,
    includeThoughts: thinking.includeThoughts === true,
  };
}

/** Identity of one simulated response. */
export interface GeminiIdentity {
  responseId: string;
  model: string;
}

function usageOf(plan: CompletionPlan): Record<string, number> {
  const usage: Record<string, number> = {
    promptTokenCount: plan.promptTokens,
    candidatesTokenCount: plan.contentTokens.length,
    totalTokenCount: plan.promptTokens + plan.contentTokens.length + plan.reasoningTokens.length,
  };
  if (plan.reasoningTokens.length > 0) usage.thoughtsTokenCount = plan.reasoningTokens.length;
  return usage;
}

function finishReasonOf(plan: CompletionPlan): string {
  return plan.finishReason === 'length' ? 'MAX_TOKENS' : 'STOP';
}

function signatureOf(identity: GeminiIdentity, text: string): string {
  return Buffer.from(`gsig:${identity.model}:${fnv1aHash(text).toString(16)}`).toString('base64');
}

/** The non-streaming `GenerateContentResponse`. */
export function geminiResponseBody(plan: CompletionPlan, identity: GeminiIdentity, includeThoughts: boolean): unknown {
  const parts: unknown[] = [];
  if (includeThoughts && plan.reasoningTokens.length > 0) parts.push({ text: plan.reasoningTokens.join(''), thought: true });
  if (plan.contentTokens.length > 0) {
    const text = plan.contentTokens.join('');
    parts.push(plan.reasoningTokens.length > 0 ? { text, thoughtSignature: signatureOf(identity, text) } : { text });
  }
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason: finishReasonOf(plan), index: 0 }],
    usageMetadata: usageOf(plan),
    modelVersion: identity.model,
    responseId: identity.responseId,
  };
}

/**
 * Stream events (`data: …` separated by CRLF CRLF, as Gemini sends them): one event per
 * thought token and per answer token, each with only its new part; the first carries the
 * prompt count, the last the finish reason and the full usage. No `[DONE]`.
 */
export function geminiStreamEvents(plan: CompletionPlan, identity: GeminiIdentity, includeThoughts: boolean): ChatStreamEvents {
  const parts: Array<Record<string, unknown>> = [];
  if (includeThoughts) for (const token of plan.reasoningTokens) parts.push({ text: token, thought: true });
  plan.contentTokens.forEach((token, index) => {
    parts.push(index === 0 && plan.reasoningTokens.length > 0 ? { text: token, thoughtSignature: signatureOf(identity, token) } : { text: token });
  });
  const events: string[] = [];
  const last = Math.max(parts.length, 1) - 1;
  for (let index = 0; index <= last; index++) {
    const part = parts[index];
    const candidate: Record<string, unknown> = { content: { role: 'model', parts: part === undefined ? [] : [part] }, index: 0 };
    const chunk: Record<string, unknown> = { candidates: [candidate] };
    if (index === last) {
      candidate.finishReason = finishReasonOf(plan);
      chunk.usageMetadata = usageOf(plan);
    } else if (index === 0) {
      chunk.usageMetadata = { promptTokenCount: plan.promptTokens, totalTokenCount: plan.promptTokens };
    }
    chunk.modelVersion = identity.model;
    chunk.responseId = identity.responseId;
    events.push(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
  }
  return { events, tokenCount: events.length };
}
