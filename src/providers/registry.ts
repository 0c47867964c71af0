import { anthropicAdapter } from './anthropic/adapter.js';
import { geminiAdapter } from './gemini/adapter.js';
import { openaiAdapter } from './openai/adapter.js';
import type { ProviderAdapter } from './types.js';

/** Wire protocol → adapter. A new protocol adds its folder and one line here. */
const ADAPTERS = {
  openai: openaiAdapter,
  anthropic: anthropicAdapter,
  gemini: geminiAdapter,
} as const satisfies Record<string, ProviderAdapter>;

/** A wire format a node can speak. */
export type WireProtocol = keyof typeof ADAPTERS;

/** Every protocol name, for the configuration schema (`provider:`, `simulated.protocol`). */
export const WIRE_PROTOCOLS = Object.keys(ADAPTERS) as WireProtocol[];

export function adapterFor(protocol: WireProtocol): ProviderAdapter {
  return ADAPTERS[protocol];
}
