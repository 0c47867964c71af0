import type { ChatRequest } from '../../protocol/openai/chat-request-schema.js';
import type { CallContext, UpstreamCall } from '../types.js';

/**
 * Builds the node request. Unknown fields pass through (vendor extensions, PRODUCT.md
 * decision 8); the model becomes the node's name for it; reasoning is sent in the form
 * the node takes, or dropped for a model without reasoning (decision 6); streams always
 * ask for usage (decision 7).
 */
export function toUpstream(request: ChatRequest, context: CallContext): UpstreamCall {
  const body: Record<string, unknown> = { ...request, model: context.upstreamModel };
  delete body.reasoning_effort;
  delete body.reasoning;
  if (context.effort !== undefined) {
    if (context.node.reasoningParam === 'reasoning') {
      // OpenRouter-style object: keep the client's other reasoning options (exclude, max_tokens…).
      body.reasoning = { ...(request.reasoning ?? {}), effort: context.effort };
    } else {
      body.reasoning_effort = context.effort;
    }
  }
  if (context.stream) {
    body.stream = true;
    body.stream_options = { ...(request.stream_options ?? {}), include_usage: true };
  } else {
    // OpenAI rejects stream_options without stream: true.
    delete body.stream;
    delete body.stream_options;
  }
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: context.stream ? 'text/event-stream' : 'application/json',
    'x-request-id': context.requestId,
    'x-correlation-id': context.correlationId,
  };
  if (context.node.apiKey !== undefined) headers.authorization = `Bearer ${context.node.apiKey}`;
  return { path: '/chat/completions', headers, body: JSON.stringify(body) };
}
