import type { ProviderAdapter } from '../types.js';
import { toError } from './errors.js';
import { fromUpstream } from './from-upstream.js';
import { nativeResponsesAdapter } from './native-responses.js';
import { createStreamMapper } from './stream-mapper.js';
import { toUpstream } from './to-upstream.js';

/** The OpenAI chat-completions protocol: OpenAI, vLLM, SGLang, Ollama, DeepSeek, OpenRouter, the simulated node. */
export const openaiAdapter: ProviderAdapter = {
  protocol: 'openai',
  toUpstream,
  fromUpstream,
  streamMapper: createStreamMapper,
  native: { responses: nativeResponsesAdapter },
  toError,
};
