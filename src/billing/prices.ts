import type { ModelPricing } from '../config/gateway-config.js';
import type { Usage } from '../protocol/openai/chat-response-types.js';
import { usdToNano } from './money.js';

/** A model's prices in nano-USD per million tokens (integers). */
export interface NanoPrices {
  readonly input: number;
  readonly output: number;
  readonly cachedInput: number;
  readonly reasoning: number;
}

/** Cached input and reasoning default to the input and output prices. */
export function nanoPrices(pricing: ModelPricing): NanoPrices {
  const input = usdToNano(pricing.input);
  const output = usdToNano(pricing.output);
  return {
    input,
    output,
    cachedInput: pricing.cachedInput === undefined ? input : usdToNano(pricing.cachedInput),
    reasoning: pricing.reasoning === undefined ? output : usdToNano(pricing.reasoning),
  };
}

const PER = 1_000_000;

/** Token counts split by price. */
export interface PricedTokens {
  readonly prompt: number;
  readonly cached: number;
  readonly completion: number;
  readonly reasoning: number;
}

export function tokensOf(usage: Usage): PricedTokens {
  const prompt = usage.prompt_tokens;
  const completion = usage.completion_tokens;
  return {
    prompt,
    cached: Math.min(prompt, usage.prompt_tokens_details?.cached_tokens ?? 0),
    completion,
    reasoning: Math.min(completion, usage.completion_tokens_details?.reasoning_tokens ?? 0),
  };
}

/**
 * The cost of a reply in nano-USD: uncached prompt at the input price, cached prompt at the
 * cached price, reasoning at the reasoning price, the rest of the completion at the output
 * price; rounded once, half up, to whole nano-USD.
 */
export function costOf(tokens: PricedTokens, prices: NanoPrices): number {
  const scaled =
    (tokens.prompt - tokens.cached) * prices.input +
    tokens.cached * prices.cachedInput +
    (tokens.completion - tokens.reasoning) * prices.output +
    tokens.reasoning * prices.reasoning;
  return Math.round(scaled / PER);
}

/** The most a request can cost: every prompt token uncached, every output token at the dearer output price. */
export function worstCaseCost(promptTokens: number, outputTokens: number, prices: NanoPrices): number {
  return Math.ceil((promptTokens * prices.input + outputTokens * Math.max(prices.output, prices.reasoning)) / PER);
}
