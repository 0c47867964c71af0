import type { ChatStreamEvents } from './chat-stream-events.js';
import { fnv1aHash } from './fnv1a-hash.js';
import type { CompletionPlan } from './plan-completion.js';
import { REASONING_TOKENS_BY_EFFORT } from './plan-completion.js';
import { invalidRequest } from './protocol-errors.js';
import type { ReasoningEffort } from './parse-chat-request.js';

/**
 * The Anthropic Messages protocol as the simulator speaks it (provider-protocols 4):
 * request checks the real API makes (max_tokens required, thinking budget ≥ 1024 and
 * below max_tokens, no temperature change while thinking), then deterministic thinking
 * and text blocks with exact usage, as one `message` or as the documented event sequence.
 */

/** What the simulator reads from a Messages request. */
export interface AnthropicRequest {
  model: string;
  /** Messages and system text as `{content}` records, for the seed and the prompt count. */
  messages: unknown[];
  stream: boolean;
  maxTokens: number;
  reasoningTokens: number;
}

/** Reasoning tokens for a thinking budget: rises with the budget (1024 → 16, 8192 → 128, 24576 → 384). */
export function reasoningTokensForBudget(budget: number): number {
  return Math.ceil(budget / 64);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function parseAnthropicRequest(body: unknown): AnthropicRequest {
  if (!isRecord(body)) throw invalidRequest('The request body must be a JSON object.');
  if (typeof body.model !== 'string' || body.model === '') throw invalidRequest('model: Field required');
  if (typeof body.max_tokens !== 'number' || !Number.isInteger(body.max_tokens) || body.max_tokens < 1) throw invalidRequest('max_tokens: Field required');
  if (!Array.isArray(body.messages) || body.messages.length === 0) throw invalidRequest('messages: at least one message is required');
  body.messages.forEach((message, index) => {
    if (!isRecord(message) || (message.role !== 'user' && message.role !== 'assistant')) {
      throw invalidRequest(`messages.${index}.role: Input should be 'user' or 'assistant'`);
    }
  });
  const maxTokens = body.max_tokens;
  let reasoningTokens = 0;
  const thinking = isRecord(body.thinking) ? body.thinking : undefined;
  if (thinking?.type === 'enabled') {
    const budget = thinking.budget_tokens;
    if (typeof budget !== 'number' || budget < 1024) throw invalidRequest('thinking.enabled.budget_tokens: Input should be greater than or equal to 1024');
    if (budget >= maxTokens) throw invalidRequest('`max_tokens` must be greater than `thinking.budget_tokens`');
    reasoningTokens = reasoningTokensForBudget(budget);
  } else if (thinking?.type === 'adaptive') {
    const effort = isRecord(body.output_config) ? body.output_config.effort : undefined;
    reasoningTokens = REASONING_TOKENS_BY_EFFORT[(typeof effort === 'string' && effort in REASONING_TOKENS_BY_EFFORT ? effort : 'high') as ReasoningEffort];
  }
  if (reasoningTokens > 0 && body.temperature !== undefined && body.temperature !== 1) {
    throw invalidRequest('`temperature` may only be set to 1 when thinking is enabled.');
  }
  const system = typeof body.system === 'string' ? [{ content: body.system }] : Array.isArray(body.system) ? [{ content: body.system }] : [];
  return { model: body.model, messages: [...system, ...body.messages], stream: body.stream === true, maxTokens, reasoningTokens };
}

/** Identity of one simulated message. */
export interface AnthropicIdentity {
  id: string;
  model: string;
}

/** A deterministic stand-in for a thinking signature. */
function signatureOf(identity: AnthropicIdentity, thinking: string): string {
  return Buffer.from(`sig:${identity.model}:${fnv1aHash(thinking).toString(16)}`).toString('base64');
}

function usageOf(plan: CompletionPlan) {
  return {
    input_tokens: plan.promptTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: plan.reasoningTokens.length + plan.contentTokens.length,
    output_tokens_details: { thinking_tokens: plan.reasoningTokens.length },
  };
}

function stopReasonOf(plan: CompletionPlan): string {
  return plan.finishReason === 'length' ? 'max_tokens' : 'end_turn';
}

/** The non-streaming `message` body. */
export function anthropicMessageBody(plan: CompletionPlan, identity: AnthropicIdentity): unknown {
  const content: unknown[] = [];
  if (plan.reasoningTokens.length > 0) {
    const thinking = plan.reasoningTokens.join('');
    content.push({ type: 'thinking', thinking, signature: signatureOf(identity, thinking) });
  }
  if (plan.contentTokens.length > 0) content.push({ type: 'text', text: plan.contentTokens.join(''), citations: null });
  return {
    id: identity.id,
    type: 'message',
    role: 'assistant',
    model: identity.model,
    content,
    stop_reason: stopReasonOf(plan),
    stop_sequence: null,
    usage: { ...usageOf(plan), service_tier: 'standard' },
  };
}

function sse(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

/**
 * The documented event sequence (provider-protocols 4.5): message_start, a ping, a
 * thinking block (thinking deltas, then its signature), a text block, message_delta with
 * the stop reason and cumulative usage, message_stop. Every event after message_start is paced.
 */
export function anthropicStreamEvents(plan: CompletionPlan, identity: AnthropicIdentity): ChatStreamEvents {
  const usage = usageOf(plan);
  const events = [
    sse('message_start', {
      message: {
        id: identity.id, type: 'message', role: 'assistant', model: identity.model, content: [], stop_reason: null, stop_sequence: null,
        usage: { input_tokens: usage.input_tokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 },
      },
    }),
    sse('ping', {}),
  ];
  let index = 0;
  if (plan.reasoningTokens.length > 0) {
    events.push(sse('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } }));
    for (const token of plan.reasoningTokens) events.push(sse('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: token } }));
    events.push(sse('content_block_delta', { index, delta: { type: 'signature_delta', signature: signatureOf(identity, plan.reasoningTokens.join('')) } }));
    events.push(sse('content_block_stop', { index }));
    index++;
  }
  if (plan.contentTokens.length > 0) {
    events.push(sse('content_block_start', { index, content_block: { type: 'text', text: '' } }));
    for (const token of plan.contentTokens) events.push(sse('content_block_delta', { index, delta: { type: 'text_delta', text: token } }));
    events.push(sse('content_block_stop', { index }));
  }
  events.push(sse('message_delta', { delta: { stop_reason: stopReasonOf(plan), stop_sequence: null }, usage: { output_tokens: usage.output_tokens, output_tokens_details: usage.output_tokens_details } }));
  events.push(sse('message_stop', {}));
  return { events, tokenCount: events.length - 1 };
}
