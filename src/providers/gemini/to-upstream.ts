import type { ChatRequest } from '../../protocol/openai/chat-request-schema.js';
import { notExpressible, readFunctionTools, readToolChoice, stopSequences } from '../translate-content.js';
import type { CallContext, UpstreamCall } from '../types.js';
import { thinkingConfigFor } from './thinking-config.js';
import { toGeminiContents } from './to-gemini-contents.js';
import { fieldOf } from '../../validation/field-of.js';

const PROTOCOL = 'gemini';

/**
 * OpenAI chat request → Gemini `generateContent` request (provider-protocols 5.2, 6.1).
 * Streams use `:streamGenerateContent?alt=sse`. Dropped, as documented in the README:
 * logit_bias, logprobs, parallel_tool_calls (no equivalent), user, and unknown fields
 * (PRODUCT.md decision 8). Rejected with 400: n > 1, non-function tools, image URLs that
 * are not data URLs, content parts Gemini has no part for.
 */
export function toUpstream(request: ChatRequest, context: CallContext): UpstreamCall {
  if (typeof request.n === 'number' && request.n > 1) throw notExpressible('n', PROTOCOL, 'more than one choice');
  const { systemTexts, contents } = toGeminiContents(request.messages);
  const body: Record<string, unknown> = { contents };
  if (systemTexts.length > 0) body.systemInstruction = { parts: systemTexts.map((text) => ({ text })) };

  const tools = readFunctionTools(request.tools, PROTOCOL);
  if (tools.length > 0) {
    body.tools = [
      {
        functionDeclarations: tools.map((tool) => ({
          name: tool.name,
          ...(tool.description === undefined ? {} : { description: tool.description }),
          ...(tool.parameters === undefined ? {} : { parametersJsonSchema: tool.parameters }),
        })),
      },
    ];
    const choice = readToolChoice(request.tool_choice, PROTOCOL);
    if (choice !== undefined) {
      body.toolConfig = {
        functionCallingConfig:
          choice.kind === 'function'
            ? { mode: 'ANY', allowedFunctionNames: [choice.name] }
            : { mode: choice.kind === 'required' ? 'ANY' : choice.kind === 'none' ? 'NONE' : 'AUTO' },
      };
    }
  }

  const generation: Record<string, unknown> = {};
  if (typeof request.temperature === 'number') generation.temperature = request.temperature;
  if (typeof request.top_p === 'number') generation.topP = request.top_p;
  // The reserved cap (PRODUCT.md decision 20), unless only the context bounds it (see OutputCap).
  if (!context.outputCap.contextBound) generation.maxOutputTokens = context.outputCap.tokens;
  const stop = stopSequences(request.stop);
  if (stop !== undefined) generation.stopSequences = stop;
  if (typeof request.presence_penalty === 'number') generation.presencePenalty = request.presence_penalty;
  if (typeof request.frequency_penalty === 'number') generation.frequencyPenalty = request.frequency_penalty;
  if (typeof request.seed === 'number') generation.seed = request.seed;
  const format = request.response_format;
  if (format !== undefined && format !== null && format.type !== 'text') {
    const schema = fieldOf(fieldOf(format, 'json_schema'), 'schema');
    if (format.type === 'json_object' || (format.type === 'json_schema' && schema === undefined))
      generation.responseMimeType = 'application/json';
    else if (format.type === 'json_schema') {
      generation.responseMimeType = 'application/json';
      generation.responseJsonSchema = schema;
    } else throw notExpressible('response_format', PROTOCOL, `response_format "${format.type}"`);
  }
  const thinkingConfig = thinkingConfigFor(request, context.effort, context.model.reasoning);
  if (thinkingConfig !== undefined) generation.thinkingConfig = thinkingConfig;
  if (Object.keys(generation).length > 0) body.generationConfig = generation;

  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: context.stream ? 'text/event-stream' : 'application/json',
    'x-request-id': context.requestId,
    'x-correlation-id': context.correlationId,
  };
  // The key goes in a header, never in the URL (STYLE.md §5).
  if (context.node.apiKey !== undefined) headers['x-goog-api-key'] = context.node.apiKey;
  const model = encodeURIComponent(context.upstreamModel);
  const path = context.stream ? `/models/${model}:streamGenerateContent?alt=sse` : `/models/${model}:generateContent`;
  return { path, headers, body: JSON.stringify(body), stream: context.stream };
}
