import type { ChatStreamEvents } from './chat-stream-events.js';
import { fnv1aHash } from './fnv1a-hash.js';
import type { GenerationControls, OfferedTool, OutputFormat, ToolChoice, TurnFacts } from './generation-controls.js';
import { messageText } from './message-text.js';
import { choiceOutputTokens, type CompletionPlan } from './plan-completion.js';
import { REASONING_TOKENS_BY_EFFORT } from './plan-completion.js';
import { invalidRequest } from './protocol-errors.js';
import { isRecord } from '../validation/is-record.js';

/**
 * The Anthropic Messages protocol as the simulator speaks it (provider-protocols 4):
 * request checks the real API makes (max_tokens required, thinking budget ≥ 1024 and
 * below max_tokens, no temperature change while thinking; on API version 2026-10-21 no
 * sampling fields, no assistant document, no user text citations), then deterministic thinking
 * and text blocks with exact usage, as one `message` or as the documented event sequence.
 * Tools come back as `tool_use` blocks (stop_reason `tool_use`), `stop_sequences` as
 * stop_reason `stop_sequence`, `output_config.format` as a JSON answer.
 */

/** What the simulator reads from a Messages request. */
export interface AnthropicRequest {
  model: string;
  /** Messages and system text as `{content}` records, for the seed and the prompt count. */
  messages: unknown[];
  stream: boolean;
  maxTokens: number;
  reasoningTokens: number;
  controls: GenerationControls;
}

/** Reasoning tokens for a thinking budget: rises with the budget (1024 → 16, 8192 → 128, 24576 → 384). */
export function reasoningTokensForBudget(budget: number): number {
  return Math.ceil(budget / 64);
}

/** The API version from which sampling fields and some content are refused (as the real API does). */
const STRICT_VERSION = '2026-10-21';

/** What API version 2026-10-21 refuses with a 400: sampling fields at any value, an assistant document, user text citations. */
function checkStrictVersion(body: Record<string, unknown>): void {
  for (const field of ['temperature', 'top_p', 'top_k'])
    if (body[field] !== undefined) throw invalidRequest(`${field}: Extra inputs are not permitted`);
  (Array.isArray(body.messages) ? body.messages : []).forEach((message: unknown, index) => {
    if (!isRecord(message) || !Array.isArray(message.content)) return;
    message.content.forEach((block: unknown, at) => {
      if (!isRecord(block)) return;
      if (message.role === 'assistant' && block.type === 'document')
        throw invalidRequest(
          `messages.${index}.content.${at}: document blocks are not permitted in assistant messages`,
        );
      if (
        message.role === 'user' &&
        block.type === 'text' &&
        Array.isArray(block.citations) &&
        block.citations.length > 0
      )
        throw invalidRequest(`messages.${index}.content.${at}.citations: not permitted in user messages`);
    });
  });
}

/** `version`: the request's `anthropic-version`; 2026-10-21 or later refuses what that version refuses. */
export function parseAnthropicRequest(body: unknown, version?: string): AnthropicRequest {
  if (!isRecord(body)) throw invalidRequest('The request body must be a JSON object.');
  if (typeof body.model !== 'string' || body.model === '') throw invalidRequest('model: Field required');
  if (typeof body.max_tokens !== 'number' || !Number.isInteger(body.max_tokens) || body.max_tokens < 1)
    throw invalidRequest('max_tokens: Field required');
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    throw invalidRequest('messages: at least one message is required');
  body.messages.forEach((message, index) => {
    // `system` mid-conversation: the API takes it (the SDK's MessageParam role), and Claude Code sends it.
    if (!isRecord(message) || (message.role !== 'user' && message.role !== 'assistant' && message.role !== 'system')) {
      throw invalidRequest(`messages.${index}.role: Input should be 'user', 'assistant' or 'system'`);
    }
  });
  if (version !== undefined && version >= STRICT_VERSION) checkStrictVersion(body);
  const maxTokens = body.max_tokens;
  let reasoningTokens = 0;
  const thinking = isRecord(body.thinking) ? body.thinking : undefined;
  if (thinking?.type === 'enabled') {
    const budget = thinking.budget_tokens;
    if (typeof budget !== 'number' || budget < 1024)
      throw invalidRequest('thinking.enabled.budget_tokens: Input should be greater than or equal to 1024');
    if (budget >= maxTokens) throw invalidRequest('`max_tokens` must be greater than `thinking.budget_tokens`');
    reasoningTokens = reasoningTokensForBudget(budget);
  } else if (thinking?.type === 'adaptive') {
    const effort = isRecord(body.output_config) ? body.output_config.effort : undefined;
    reasoningTokens =
      Object.entries(REASONING_TOKENS_BY_EFFORT).find(([name]) => name === effort)?.[1] ??
      REASONING_TOKENS_BY_EFFORT.high;
  }
  if (reasoningTokens > 0 && body.temperature !== undefined && body.temperature !== 1) {
    throw invalidRequest('`temperature` may only be set to 1 when thinking is enabled.');
  }
  const system =
    typeof body.system === 'string'
      ? [{ content: body.system }]
      : Array.isArray(body.system)
        ? [{ content: body.system }]
        : [];
  return {
    model: body.model,
    messages: [...system, ...body.messages],
    stream: body.stream === true,
    maxTokens,
    reasoningTokens,
    controls: anthropicControls(body),
  };
}

function readTools(value: unknown): OfferedTool[] {
  if (!Array.isArray(value)) return [];
  // Client tools have an input_schema; server tools (web search, …) have a `type` and none.
  return value.flatMap((tool) =>
    isRecord(tool) && typeof tool.name === 'string' && isRecord(tool.input_schema)
      ? [{ name: tool.name, parameters: tool.input_schema }]
      : [],
  );
}

function readToolChoice(value: unknown): ToolChoice {
  if (!isRecord(value)) return { mode: 'auto' };
  if (value.type === 'none') return { mode: 'none' };
  if (value.type === 'any') return { mode: 'required' };
  if (value.type === 'tool' && typeof value.name === 'string') return { mode: 'required', only: [value.name] };
  return { mode: 'auto' };
}

function readFormat(body: Record<string, unknown>): OutputFormat {
  const format = isRecord(body.output_config) ? body.output_config.format : undefined;
  return isRecord(format) && format.type === 'json_schema'
    ? { kind: 'json_schema', schema: format.schema }
    : { kind: 'text' };
}

/** Text of a `tool_result` block: its string content or its text blocks. */
function toolResultText(block: Record<string, unknown>): string {
  return messageText({ content: block.content });
}

/** Facts about the end of a Messages conversation: a user turn of `tool_result` blocks is a tool result. */
function anthropicTurnFacts(messages: readonly unknown[]): TurnFacts {
  // Claude Code may end a request with `system` turns after a tool result: the speaker is the turn before them.
  const turns = messages.filter(isRecord);
  let end = turns.length - 1;
  while (end >= 0 && turns[end]?.role === 'system') end--;
  const last = turns[end];
  const blocks = Array.isArray(last?.content) ? last.content.filter(isRecord) : [];
  const results = blocks.filter((block) => block.type === 'tool_result');
  const isToolResult = last?.role === 'user' && results.length > 0;
  const lastUser = [...turns]
    .reverse()
    .find(
      (turn) =>
        turn.role === 'user' &&
        !(Array.isArray(turn.content) && turn.content.some((block) => isRecord(block) && block.type === 'tool_result')),
    );
  const speaker = isToolResult ? 'tool' : last?.role === 'assistant' ? 'assistant' : 'user';
  return {
    lastRole: end < turns.length - 1 ? 'system' : speaker,
    lastSpeaker: speaker,
    lastText:
      end < turns.length - 1
        ? messageText(turns[turns.length - 1])
        : isToolResult
          ? results.map(toolResultText).join('\n')
          : messageText(last),
    lastUserText: lastUser === undefined ? '' : messageText(lastUser),
    toolResult: isToolResult ? results.map(toolResultText).join('\n') : '',
  };
}

function anthropicControls(body: Record<string, unknown>): GenerationControls {
  const stop = Array.isArray(body.stop_sequences)
    ? body.stop_sequences.filter((entry): entry is string => typeof entry === 'string')
    : [];
  return {
    tools: readTools(body.tools),
    toolChoice: readToolChoice(body.tool_choice),
    choiceCount: 1,
    stop,
    format: readFormat(body),
    topLogprobs: undefined,
    turn: anthropicTurnFacts(Array.isArray(body.messages) ? body.messages : []),
  };
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

/** Anthropic counts cache reads apart: `input_tokens` are the prompt tokens not read from the cache. */
function usageOf(plan: CompletionPlan) {
  const cached = plan.cachedTokens ?? 0;
  return {
    input_tokens: plan.promptTokens - cached,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
    output_tokens: choiceOutputTokens(plan),
    output_tokens_details: { thinking_tokens: plan.reasoningTokens.length },
  };
}

function stopReasonOf(plan: CompletionPlan): string {
  if (plan.finishReason === 'tool_calls') return 'tool_use';
  if (plan.stopSequence !== undefined) return 'stop_sequence';
  return plan.finishReason === 'length' ? 'max_tokens' : 'end_turn';
}

/** Anthropic's spelling of a planned call's id. */
function toolUseId(id: string): string {
  return `toolu_${id}`;
}

/** The non-streaming `message` body. */
export function anthropicMessageBody(plan: CompletionPlan, identity: AnthropicIdentity): unknown {
  const content: unknown[] = [];
  if (plan.reasoningTokens.length > 0) {
    const thinking = plan.reasoningTokens.join('');
    content.push({ type: 'thinking', thinking, signature: signatureOf(identity, thinking) });
  }
  if (plan.contentTokens.length > 0) content.push({ type: 'text', text: plan.contentTokens.join(''), citations: null });
  for (const call of plan.toolCalls) {
    const input: unknown = JSON.parse(call.arguments);
    content.push({ type: 'tool_use', id: toolUseId(call.id), name: call.name, input });
  }
  return {
    id: identity.id,
    type: 'message',
    role: 'assistant',
    model: identity.model,
    content,
    stop_reason: stopReasonOf(plan),
    stop_sequence: plan.stopSequence ?? null,
    usage: { ...usageOf(plan), service_tier: 'standard' },
  };
}

function sse(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

/**
 * The documented event sequence (provider-protocols 4.5): message_start, a ping, a
 * thinking block (thinking deltas, then its signature), a text block, `tool_use` blocks
 * (`input_json_delta` pieces), message_delta with
 * the stop reason and cumulative usage, message_stop. Every event after message_start is paced.
 */
export function anthropicStreamEvents(plan: CompletionPlan, identity: AnthropicIdentity): ChatStreamEvents {
  const usage = usageOf(plan);
  const events = [
    sse('message_start', {
      message: {
        id: identity.id,
        type: 'message',
        role: 'assistant',
        model: identity.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: usage.input_tokens,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: usage.cache_read_input_tokens,
          output_tokens: 1,
        },
      },
    }),
    sse('ping', {}),
  ];
  let index = 0;
  if (plan.reasoningTokens.length > 0) {
    events.push(
      sse('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } }),
    );
    for (const token of plan.reasoningTokens)
      events.push(sse('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: token } }));
    events.push(
      sse('content_block_delta', {
        index,
        delta: { type: 'signature_delta', signature: signatureOf(identity, plan.reasoningTokens.join('')) },
      }),
    );
    events.push(sse('content_block_stop', { index }));
    index++;
  }
  if (plan.contentTokens.length > 0) {
    events.push(sse('content_block_start', { index, content_block: { type: 'text', text: '' } }));
    for (const token of plan.contentTokens)
      events.push(sse('content_block_delta', { index, delta: { type: 'text_delta', text: token } }));
    events.push(sse('content_block_stop', { index }));
    index++;
  }
  for (const call of plan.toolCalls) {
    events.push(
      sse('content_block_start', {
        index,
        content_block: { type: 'tool_use', id: toolUseId(call.id), name: call.name, input: {} },
      }),
    );
    for (const piece of call.argumentChunks)
      events.push(sse('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } }));
    events.push(sse('content_block_stop', { index }));
    index++;
  }
  events.push(
    sse('message_delta', {
      delta: { stop_reason: stopReasonOf(plan), stop_sequence: plan.stopSequence ?? null },
      usage: { output_tokens: usage.output_tokens, output_tokens_details: usage.output_tokens_details },
    }),
  );
  events.push(sse('message_stop', {}));
  return { events, tokenCount: events.length - 1 };
}
