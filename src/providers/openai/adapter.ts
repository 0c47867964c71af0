import type { ProviderAdapter } from '../types.js';
import { classifyNodeError } from '../classify-node-error.js';
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
  // Node errors need nothing of the protocol's own: statuses decide failover or pass-through.
  toError: classifyNodeError,
};
