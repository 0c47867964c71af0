import type { ModelConfig } from '../../src/config/gateway-config.js';

/** A resolved model for unit tests: id `m`, nothing configured but `fields`. */
export function modelConfig(fields: Partial<ModelConfig> = {}): ModelConfig {
  return {
    id: 'm',
    ownedBy: 'x',
    created: 0,
    contextLength: undefined,
    maxOutputTokens: undefined,
    defaultMaxTokens: undefined,
    reasoning: undefined,
    pricing: undefined,
    routes: [],
    ...fields,
  };
}
