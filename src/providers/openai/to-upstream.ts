import type { ReasoningEffort } from '../../config/gateway-config.js';
import type { ChatRequest } from '../../protocol/openai/chat-request-schema.js';
import type { CallContext, UpstreamCall } from '../types.js';
import { withoutUnlistedTier } from '../../billing/priced-node-features.js';

/**
 * Builds the node request. Unknown fields pass through (vendor extensions, PRODUCT.md
 * decision 8); the model becomes the node's name for it; reasoning is sent in the form
 * the node takes, or dropped for a model without reasoning (decision 6); streams always
 * ask for usage (decision 7); the output cap is the reserved one (decision 20).
 */
export function toUpstream(request: ChatRequest, context: CallContext): UpstreamCall {
  // A `service_tier` the model does not list is not forwarded (docs/keys-and-money.md, priced node features).
  const body = withoutUnlistedTier<Record<string, unknown>>(
    { ...request, model: context.upstreamModel },
    context.model,
  );
  delete body.reasoning_effort;
  delete body.reasoning;
  if (context.effort !== undefined) {
    if (context.node.reasoningParam === 'reasoning') body.reasoning = reasoningObject(request, context.effort);
    else body.reasoning_effort = context.effort;
  }
  setOutputCap(body, request, context);
  if (context.stream) {
    body.stream = true;
    body.stream_options = { ...(request.stream_options ?? {}), include_usage: true };
  } else {
    // OpenAI rejects stream_options without stream: true.
    delete body.stream;
    delete body.stream_options;
  }
  return {
    path: '/chat/completions',
    headers: nodeHeaders(context),
    body: JSON.stringify(body),
    stream: context.stream,
  };
}

/** The headers of every request to an OpenAI-protocol node: JSON or a stream, the request ids, the node's key. */
export function nodeHeaders(context: CallContext): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: context.stream ? 'text/event-stream' : 'application/json',
    'x-request-id': context.requestId,
    'x-correlation-id': context.correlationId,
  };
  if (context.node.apiKey !== undefined) headers.authorization = `Bearer ${context.node.apiKey}`;
  return headers;
}

/**
 * Sends the reserved cap in the field(s) the client used, else in the node's
 * `max_tokens_field`. A cap only the context bounds is left to the node, which enforces
 * its own context (see OutputCap): the client's fields, if any, stay as they were.
 */
function setOutputCap(body: Record<string, unknown>, request: ChatRequest, context: CallContext): void {
  const cap = context.outputCap;
  if (cap.contextBound) return;
  const completionField = request.max_completion_tokens !== undefined && request.max_completion_tokens !== null;
  const tokensField = request.max_tokens !== undefined && request.max_tokens !== null;
  if (completionField) body.max_completion_tokens = cap.tokens;
  if (tokensField) body.max_tokens = cap.tokens;
  if (!completionField && !tokensField) {
    // An explicit null is "no cap": dropped, so the node sees one field only.
    delete body.max_tokens;
    delete body.max_completion_tokens;
    body[context.node.maxTokensField] = cap.tokens;
  }
}

/**
 * OpenRouter's `reasoning` object (provider-protocols 3.4): the client's options (`max_tokens`,
 * `exclude`, …) without nulls, and the effort, unless the client's `max_tokens` stands for it:
 * OpenRouter takes one or the other, and an explicit budget wins (docs/reasoning.md).
 */
function reasoningObject(request: ChatRequest, effort: ReasoningEffort): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(request.reasoning ?? {})) if (value !== null) object[field] = value;
  if (typeof object.max_tokens === 'number') delete object.effort;
  else object.effort = effort;
  return object;
}
