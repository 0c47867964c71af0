import type { ChatRequest } from '../../protocol/openai/chat-request-schema.js';
import { notExpressible, readFunctionTools, readToolChoice, stopSequences } from '../translate-content.js';
import type { CallContext, UpstreamCall } from '../types.js';
import { isStrictVersion } from './api-version.js';
import { thinkingFor } from './thinking-config.js';
import { toAnthropicMessages } from './to-anthropic-messages.js';
import { fieldOf } from '../../validation/field-of.js';

const PROTOCOL = 'anthropic';
/** `max_tokens` (required) when only the model's context bounds the reply: the node's context still does. */
export const FALLBACK_MAX_TOKENS = 4096;

/**
 * OpenAI chat request → Anthropic Messages request (provider-protocols 4.2, 6.1).
 * Dropped, as documented in the README: penalties, logit_bias, logprobs, seed, and
 * unknown fields (PRODUCT.md decision 8). Rejected with 400: n > 1, temperature above
 * Anthropic's 1.0, `response_format: json_object`, non-function tools, content parts
 * Anthropic has no block for. `cache_control` on tools (and on messages and parts, see
 * toAnthropicMessages) reaches the node unchanged.
 */
export function toUpstream(request: ChatRequest, context: CallContext): UpstreamCall {
  if (typeof request.n === 'number' && request.n > 1) throw notExpressible('n', PROTOCOL, 'more than one choice');
  const { system, messages } = toAnthropicMessages(request.messages);
  // The reserved cap (PRODUCT.md decision 20); one only the context bounds can be large, and
  // Anthropic refuses a max_tokens above the model's output limit: then a smaller one, still within it.
  const cap = context.outputCap;
  const maxTokens = cap.contextBound ? Math.min(cap.tokens, FALLBACK_MAX_TOKENS) : cap.tokens;
  const body: Record<string, unknown> = { model: context.upstreamModel, max_tokens: maxTokens };
  if (system.length > 0) body.system = system;
  body.messages = messages;

  const tools = readFunctionTools(request.tools, PROTOCOL);
  const toolChoice = tools.length > 0 ? readToolChoice(request.tool_choice, PROTOCOL) : undefined;
  // Thinking forbids forced tool use (provider-protocols 4.3): the client's explicit choice wins, thinking stays off.
  const forcesTool = toolChoice?.kind === 'required' || toolChoice?.kind === 'function';
  const thinking = forcesTool ? undefined : thinkingFor(request, context.effort, context.model.reasoning, maxTokens);
  const outputConfig: Record<string, unknown> = {};
  if (thinking !== undefined) {
    // Thinking allows no temperature/top_k change and restricts top_p: sampling fields are left out.
    body.thinking = thinking.thinking;
    if (thinking.effort !== undefined) outputConfig.effort = thinking.effort;
  } else if (!isStrictVersion(context.node)) {
    // API version 2026-10-21 refuses sampling fields at any value: a node on it gets none.
    if (typeof request.temperature === 'number') {
      if (request.temperature > 1) throw notExpressible('temperature', PROTOCOL, 'a temperature above 1');
      body.temperature = request.temperature;
    }
    if (typeof request.top_p === 'number') body.top_p = request.top_p;
  }
  const stop = stopSequences(request.stop);
  if (stop !== undefined) body.stop_sequences = stop;

  if (tools.length > 0) {
    body.tools = tools.map((tool) => ({
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      input_schema: tool.parameters ?? { type: 'object', properties: {} },
      ...(tool.cacheControl === undefined ? {} : { cache_control: tool.cacheControl }),
    }));
    const choice: Record<string, unknown> =
      toolChoice?.kind === 'function'
        ? { type: 'tool', name: toolChoice.name }
        : {
            type: toolChoice === undefined ? 'auto' : { auto: 'auto', none: 'none', required: 'any' }[toolChoice.kind],
          };
    if (request.parallel_tool_calls === false && choice.type !== 'none') choice.disable_parallel_tool_use = true;
    if (toolChoice !== undefined || choice.disable_parallel_tool_use === true) body.tool_choice = choice;
  }

  const format = request.response_format;
  if (format !== undefined && format !== null && format.type !== 'text') {
    const schema = fieldOf(fieldOf(format, 'json_schema'), 'schema');
    if (format.type !== 'json_schema' || schema === undefined)
      throw notExpressible('response_format', PROTOCOL, `response_format "${format.type}"`);
    outputConfig.format = { type: 'json_schema', schema };
  }
  if (Object.keys(outputConfig).length > 0) body.output_config = outputConfig;
  if (typeof request.user === 'string' && request.user !== '') body.metadata = { user_id: request.user };
  if (context.stream) body.stream = true;

  return { path: '/messages', headers: nodeHeaders(context), body: JSON.stringify(body), stream: context.stream };
}

/** The headers of every request to an Anthropic node: JSON or a stream, the node's API version, the request ids, the node's key. */
export function nodeHeaders(context: CallContext): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: context.stream ? 'text/event-stream' : 'application/json',
    'anthropic-version': context.node.anthropicVersion,
    'x-request-id': context.requestId,
    'x-correlation-id': context.correlationId,
  };
  if (context.node.apiKey !== undefined) headers['x-api-key'] = context.node.apiKey;
  return headers;
}
