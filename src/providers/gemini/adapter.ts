import type { ProviderAdapter } from '../types.js';
import { classifyNodeError } from '../classify-node-error.js';
import { fromUpstream } from './from-upstream.js';
import { createStreamMapper } from './stream-mapper.js';
import { toUpstream } from './to-upstream.js';

/** The Gemini API (`POST {base_url}/models/{model}:generateContent`, `:streamGenerateContent?alt=sse`). */
export const geminiAdapter: ProviderAdapter = {
  protocol: 'gemini',
  toUpstream,
  fromUpstream,
  streamMapper: createStreamMapper,
  // Node errors need nothing of the protocol's own: statuses decide failover or pass-through.
  toError: classifyNodeError,
};
