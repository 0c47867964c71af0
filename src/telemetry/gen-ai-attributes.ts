import type { WireProtocol } from '../config/wire-protocols.js';

// The GenAI semantic conventions are still "development" in @opentelemetry/semantic-conventions
// (its `incubating` entry point, which may rename between minor versions): as that package
// advises, the names used are copied here, as of semantic-conventions 1.45.
export const GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name';
export const GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';
export const GEN_AI_REQUEST_MAX_TOKENS = 'gen_ai.request.max_tokens';
export const GEN_AI_REQUEST_STREAM = 'gen_ai.request.stream';
export const GEN_AI_RESPONSE_MODEL = 'gen_ai.response.model';
export const GEN_AI_RESPONSE_ID = 'gen_ai.response.id';
export const GEN_AI_RESPONSE_FINISH_REASONS = 'gen_ai.response.finish_reasons';
export const GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK = 'gen_ai.response.time_to_first_chunk';
export const GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
export const GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
export const GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS = 'gen_ai.usage.cache_read.input_tokens';
export const GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS = 'gen_ai.usage.cache_creation.input_tokens';
export const GEN_AI_USAGE_REASONING_OUTPUT_TOKENS = 'gen_ai.usage.reasoning.output_tokens';
export const GEN_AI_INPUT_MESSAGES = 'gen_ai.input.messages';
export const GEN_AI_OUTPUT_MESSAGES = 'gen_ai.output.messages';

/** Every front door's request is a chat (Chat Completions, Messages and Responses alike). */
export const CHAT_OPERATION = 'chat';

/** `gen_ai.provider.name` of a node by its wire protocol (the semconv's well-known values). */
export const PROVIDER_NAMES: Readonly<Record<WireProtocol, string>> = {
  openai: 'openai',
  anthropic: 'anthropic',
  gemini: 'gcp.gemini',
};

// The gateway's own attributes.
export const SWITCHYARD_REQUEST_ID = 'switchyard.request_id';
export const SWITCHYARD_NODE = 'switchyard.node';
export const SWITCHYARD_ATTEMPT = 'switchyard.attempt';
export const SWITCHYARD_ACCOUNT = 'switchyard.account';
export const SWITCHYARD_COST_USD = 'switchyard.cost_usd';
export const SWITCHYARD_FRONT_DOOR = 'switchyard.front_door';
