import type { ProviderAdapter } from '../types.js';
import { toError } from './errors.js';
import { fromUpstream } from './from-upstream.js';
import { anthropicNativeMessages } from './native-messages.js';
import { createStreamMapper } from './stream-mapper.js';
import { toUpstream } from './to-upstream.js';

/** The Anthropic Messages protocol (`POST {base_url}/messages`). */
export const anthropicAdapter: ProviderAdapter = {
  protocol: 'anthropic',
  toUpstream,
  fromUpstream,
  streamMapper: createStreamMapper,
  toError,
  native: { messages: anthropicNativeMessages },
};
