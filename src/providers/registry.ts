import { anthropicAdapter } from './anthropic/adapter.js';
import { geminiAdapter } from './gemini/adapter.js';
import { openaiAdapter } from './openai/adapter.js';
import type { ProviderAdapter } from './types.js';
import type { WireProtocol } from '../config/wire-protocols.js';

/** Wire protocol → adapter. A new protocol adds its folder, one line here, and its name and hosted base URL in config/wire-protocols.ts. */
const ADAPTERS = {
  openai: openaiAdapter,
  anthropic: anthropicAdapter,
  gemini: geminiAdapter,
} as const satisfies Record<WireProtocol, ProviderAdapter>;

export function adapterFor(protocol: WireProtocol): ProviderAdapter {
  return ADAPTERS[protocol];
}
