import type { ConfigFile } from './config-schema.js';
import { DEFAULTS } from './defaults.js';
import type { ModelPricing, PricedFeatures } from './gateway-config.js';

type ModelFile = ConfigFile['models'][number];
type PricingFile = NonNullable<ModelFile['pricing']>;
type PricedFeaturesFile = NonNullable<ModelFile['priced_features']>;

/** A `pricing` block (USD per million tokens) as the gateway reads it. */
export function resolvePricing(file: PricingFile): ModelPricing {
  return {
    input: file.input,
    output: file.output,
    cachedInput: file.cached_input,
    cacheWrite: file.cache_write,
    cacheWrite1h: file.cache_write_1h,
    reasoning: file.reasoning,
  };
}

/** A model's `priced_features` block: what it allows of a node's priced features, and their prices. */
export function resolvePricedFeatures(file: PricedFeaturesFile): PricedFeatures {
  return {
    serverTools: new Map(
      Object.entries(file.server_tools ?? {}).map(([name, tool]) => [
        name,
        { usdPerCall: tool.usd_per_call, maxCalls: tool.max_calls ?? DEFAULTS.serverToolMaxCalls },
      ]),
    ),
    serviceTiers: new Map(
      Object.entries(file.service_tiers ?? {}).map(([name, tier]) => [name, resolvePricing(tier.pricing)]),
    ),
    betas: new Map(
      Object.entries(file.betas ?? {}).map(([name, beta]) => [
        name,
        { pricing: resolvePricing(beta.pricing), minPromptTokens: beta.min_prompt_tokens ?? 0 },
      ]),
    ),
  };
}
