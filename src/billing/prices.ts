import type { ModelPricing } from '../config/gateway-config.js';
import type { Usage } from '../protocol/openai/chat-response-types.js';
import { usdToNano } from './money.js';

/** A model's prices in nano-USD per million tokens (integers). */
export interface NanoPrices {
  readonly input: number;
  readonly output: number;
  readonly cachedInput: number;
  /** Prompt written to a 5-minute prompt cache. */
  readonly cacheWrite: number;
  /** Prompt written to a 1-hour prompt cache. */
  readonly cacheWrite1h: number;
  readonly reasoning: number;
}

/**
 * Cached input and reasoning default to the input and output prices; cache writes to
 * Anthropic's multipliers of the input price: 1.25 × for 5 minutes, 2 × for 1 hour.
 */
export function nanoPrices(pricing: ModelPricing): NanoPrices {
  const input = usdToNano(pricing.input);
  const output = usdToNano(pricing.output);
  return {
    input,
    output,
    cachedInput: pricing.cachedInput === undefined ? input : usdToNano(pricing.cachedInput),
    cacheWrite: pricing.cacheWrite === undefined ? Math.round((input * 5) / 4) : usdToNano(pricing.cacheWrite),
    cacheWrite1h: pricing.cacheWrite1h === undefined ? input * 2 : usdToNano(pricing.cacheWrite1h),
    reasoning: pricing.reasoning === undefined ? output : usdToNano(pricing.reasoning),
  };
}

const PER = 1_000_000;

/**
 * Token counts split by price. `prompt` is the whole prompt; `cached` (read from a cache)
 * and `cacheWrite` (written to one, `cacheWrite1h` of it for an hour) are parts of it that
 * never overlap, so no token is priced twice.
 */
export interface PricedTokens {
  readonly prompt: number;
  readonly cached: number;
  readonly cacheWrite: number;
  readonly cacheWrite1h: number;
  readonly completion: number;
  readonly reasoning: number;
}

/** A count the usage may carry: a whole number ≥ 0, else 0. */
function countOf(value: unknown): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0;
}

/**
 * The usage's tokens by price: cache reads from `prompt_tokens_details.cached_tokens`, cache
 * writes from `cache_write_tokens` (of which `cache_write_1h_tokens` for one hour), each
 * clamped into what is left of the prompt.
 */
export function tokensOf(usage: Usage): PricedTokens {
  const prompt = usage.prompt_tokens;
  const completion = usage.completion_tokens;
  const details = usage.prompt_tokens_details;
  const cached = Math.min(prompt, countOf(details?.cached_tokens));
  const cacheWrite = Math.min(prompt - cached, countOf(details?.cache_write_tokens));
  return {
    prompt,
    cached,
    cacheWrite,
    cacheWrite1h: Math.min(cacheWrite, countOf(details?.cache_write_1h_tokens)),
    completion,
    reasoning: Math.min(completion, countOf(usage.completion_tokens_details?.reasoning_tokens)),
  };
}

/**
 * The cost of a reply in nano-USD: the prompt neither read from nor written to a cache at
 * the input price, cache reads at the cached price, cache writes at the 5-minute or 1-hour
 * write price, reasoning at the reasoning price, the rest of the completion at the output
 * price; rounded once, half up, to whole nano-USD.
 */
export function costOf(tokens: PricedTokens, prices: NanoPrices): number {
  const scaled =
    (tokens.prompt - tokens.cached - tokens.cacheWrite) * prices.input +
    tokens.cached * prices.cachedInput +
    (tokens.cacheWrite - tokens.cacheWrite1h) * prices.cacheWrite +
    tokens.cacheWrite1h * prices.cacheWrite1h +
    (tokens.completion - tokens.reasoning) * prices.output +
    tokens.reasoning * prices.reasoning;
  return Math.round(scaled / PER);
}

/**
 * The most a request can cost: every prompt token at the dearest price it can be billed at
 * (the input price, or a cache-write price when the request marks cache breakpoints), every
 * output token at the dearer output price.
 */
export function worstCaseCost(
  promptTokens: number,
  outputTokens: number,
  prices: NanoPrices,
  writesCache = false,
): number {
  const promptPrice = writesCache ? Math.max(prices.input, prices.cacheWrite, prices.cacheWrite1h) : prices.input;
  return Math.ceil((promptTokens * promptPrice + outputTokens * Math.max(prices.output, prices.reasoning)) / PER);
}
