import { SimulatorError } from './simulator-error.js';
import { isRecord } from '../validation/is-record.js';

/** Reasoning effort values the simulator understands ("none" means no reasoning). */
export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';

const REASONING_EFFORTS: readonly ReasoningEffort[] = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'];

/** The parts of an OpenAI chat-completions request the simulator acts on. */
export interface ChatRequest {
  model: string;
  messages: readonly unknown[];
  stream: boolean;
  includeUsage: boolean;
  /** `max_completion_tokens` ?? `max_tokens`; bounds reasoning plus visible output. */
  maxTokens: number | undefined;
  reasoningEffort: ReasoningEffort | undefined;
  /** Reasoning tokens wanted, when the protocol gives a budget rather than an effort (overrides `reasoningEffort`). */
  reasoningTokens?: number;
}

function invalid(message: string, param: string, code: string | null = 'invalid_value'): SimulatorError {
  return new SimulatorError(400, message, { param, code });
}

function readMaxTokens(
  body: Record<string, unknown>,
  field: 'max_completion_tokens' | 'max_tokens',
): number | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw invalid(`Invalid '${field}': expected an integer >= 1.`, field);
  }
  return value;
}

function readReasoningEffort(body: Record<string, unknown>): ReasoningEffort | undefined {
  // OpenAI spells it `reasoning_effort`; OpenRouter and Ollama also accept `reasoning: {effort}`.
  const nested = isRecord(body.reasoning) ? body.reasoning.effort : undefined;
  const [param, value] =
    body.reasoning_effort !== undefined && body.reasoning_effort !== null
      ? ['reasoning_effort', body.reasoning_effort]
      : ['reasoning.effort', nested];
  if (value === undefined || value === null) return undefined;
  const effort = REASONING_EFFORTS.find((known) => known === value);
  if (effort === undefined) {
    throw invalid(`Invalid '${param}': expected one of ${REASONING_EFFORTS.join(', ')}.`, param);
  }
  return effort;
}

/** Validates a parsed JSON body as a chat-completions request; throws a 400 SimulatorError otherwise. */
export function parseChatRequest(body: unknown): ChatRequest {
  if (!isRecord(body)) throw invalid('The request body must be a JSON object.', 'body', null);
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    throw invalid(
      "'messages' must be a non-empty array.",
      'messages',
      body.messages === undefined ? 'missing_required_parameter' : 'invalid_value',
    );
  }
  if (typeof body.model !== 'string' || body.model === '') {
    throw invalid(
      "'model' must be a non-empty string.",
      'model',
      body.model === undefined ? 'missing_required_parameter' : 'invalid_value',
    );
  }
  const streamOptions = isRecord(body.stream_options) ? body.stream_options : {};
  return {
    model: body.model,
    messages: body.messages,
    stream: body.stream === true,
    includeUsage: streamOptions.include_usage === true,
    maxTokens: readMaxTokens(body, 'max_completion_tokens') ?? readMaxTokens(body, 'max_tokens'),
    reasoningEffort: readReasoningEffort(body),
  };
}
