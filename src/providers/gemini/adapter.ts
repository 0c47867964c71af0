import type { ProviderAdapter } from '../types.js';
import { toError } from './errors.js';
import { fromUpstream } from './from-upstream.js';
import { createStreamMapper } from './stream-mapper.js';
import { toUpstream } from './to-upstream.js';

/** The Gemini API (`POST {base_url}/models/{model}:generateContent`, `:streamGenerateContent?alt=sse`). */
export const geminiAdapter: ProviderAdapter = {
  protocol: 'gemini',
  toUpstream,
  fromUpstream,
  streamMapper: createStreamMapper,
  toError,
};
