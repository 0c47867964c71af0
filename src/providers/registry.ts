import { openaiAdapter } from './openai/adapter.js';
import type { ProviderAdapter, WireProtocol } from './types.js';

/** Wire protocol → adapter. A new protocol adds its folder and one line here. */
const ADAPTERS: Readonly<Record<WireProtocol, ProviderAdapter>> = {
  openai: openaiAdapter,
};

export function adapterFor(protocol: WireProtocol): ProviderAdapter {
  return ADAPTERS[protocol];
}
