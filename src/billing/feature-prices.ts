import type { ModelConfig, ModelPricing, PricedFeatures } from '../config/gateway-config.js';
import type { UsageFeatures } from '../store/records.js';
import { usdToNano } from './money.js';
import { nanoPrices, type NanoPrices } from './prices.js';

/**
 * What of a model's priced features one request may use, as its front door read it from
 * the request (issue 28 finding 10): the server tools it offers that the model allows, in
 * groups of calls, and the priced betas forwarded to the node.
 */
export interface FeatureUse {
  /**
   * Calls the node may make, each group priced at its dearest tool: one group per tool where
   * each tool has its own cap (Anthropic `max_uses`), one for all where the cap is shared
   * (Responses `max_tool_calls`).
   */
  readonly toolCalls: readonly { readonly tools: readonly string[]; readonly calls: number }[];
  /** Priced betas (`anthropic-beta` values) the node is sent. */
  readonly betas: readonly string[];
}

/** What a node reported of its priced features for one reply (its usage, its output items). */
export interface ReportedFeatures {
  /** Server-tool calls by tool name (`web_search`: 3). */
  readonly serverToolCalls?: Readonly<Record<string, number>>;
  /** The service tier the node says it served the request in. */
  readonly serviceTier?: string;
}

/** The priced features of a usage row: tool calls, the tier reported and the betas whose prices applied. */
export type BookedFeatures = UsageFeatures;

const NO_FEATURES: PricedFeatures = { serverTools: new Map(), serviceTiers: new Map(), betas: new Map() };
export const NO_FEATURE_USE: FeatureUse = { toolCalls: [], betas: [] };
const FREE: NanoPrices = { input: 0, output: 0, cachedInput: 0, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0 };

/** The model's priced features; none when it lists none. */
export function pricedFeaturesOf(model: ModelConfig): PricedFeatures {
  return model.pricedFeatures ?? NO_FEATURES;
}

/** Whether the model can cost anything: token prices, or a priced feature. */
export function isPaid(model: ModelConfig): boolean {
  const features = model.pricedFeatures;
  return (
    model.pricing !== undefined ||
    (features !== undefined &&
      (features.serverTools.size > 0 || features.serviceTiers.size > 0 || features.betas.size > 0))
  );
}

/** Each configured price table in nano-USD, computed once per configuration. */
const NANO_TABLES = new WeakMap<ModelPricing, NanoPrices>();

function nanoTable(pricing: ModelPricing): NanoPrices {
  let table = NANO_TABLES.get(pricing);
  if (table === undefined) {
    table = nanoPrices(pricing);
    NANO_TABLES.set(pricing, table);
  }
  return table;
}

/** The dearer of two price tables, price by price. */
function dearest(a: NanoPrices, b: NanoPrices): NanoPrices {
  return {
    input: Math.max(a.input, b.input),
    output: Math.max(a.output, b.output),
    cachedInput: Math.max(a.cachedInput, b.cachedInput),
    cacheWrite: Math.max(a.cacheWrite, b.cacheWrite),
    cacheWrite1h: Math.max(a.cacheWrite1h, b.cacheWrite1h),
    reasoning: Math.max(a.reasoning, b.reasoning),
  };
}

/**
 * The token prices the reservation is priced on: the dearest of the model's own, every
 * service tier it allows (the node decides which tier it serves in, and says so only in its
 * reply) and the betas forwarded.
 */
export function reservedPrices(model: ModelConfig, base: NanoPrices | undefined, use: FeatureUse): NanoPrices {
  const features = pricedFeaturesOf(model);
  let prices = base ?? FREE;
  for (const tier of features.serviceTiers.values()) prices = dearest(prices, nanoTable(tier));
  for (const name of use.betas) {
    const beta = features.betas.get(name);
    if (beta !== undefined) prices = dearest(prices, nanoTable(beta.pricing));
  }
  return prices;
}

/** The most the request's server-tool calls can cost, in nano-USD: each group's calls at its dearest tool. */
export function reservedToolNano(model: ModelConfig, use: FeatureUse): number {
  const tools = pricedFeaturesOf(model).serverTools;
  let nano = 0;
  for (const group of use.toolCalls) {
    const dearestCall = Math.max(0, ...group.tools.map((name) => usdToNano(tools.get(name)?.usdPerCall ?? 0)));
    nano += dearestCall * group.calls;
  }
  return nano;
}

/**
 * The token prices a reply is billed at: the model's own, or (the dearer, price by price)
 * those of the service tier the node reported when the model lists it, and of each
 * forwarded beta whose prompt threshold the prompt reached; with the names of those applied.
 */
export function settledPrices(
  model: ModelConfig,
  base: NanoPrices | undefined,
  use: FeatureUse,
  reported: ReportedFeatures,
  promptTokens: number,
): { readonly prices: NanoPrices; readonly tier: string | undefined; readonly betas: readonly string[] } {
  const features = pricedFeaturesOf(model);
  let prices = base ?? FREE;
  const tierName = reported.serviceTier;
  const tier = tierName === undefined ? undefined : features.serviceTiers.get(tierName);
  if (tier !== undefined) prices = dearest(prices, nanoTable(tier));
  const betas: string[] = [];
  for (const name of use.betas) {
    const beta = features.betas.get(name);
    if (beta === undefined || promptTokens < beta.minPromptTokens) continue;
    prices = dearest(prices, nanoTable(beta.pricing));
    betas.push(name);
  }
  return { prices, tier: tier === undefined ? undefined : tierName, betas };
}

/** What the server-tool calls the node reported cost, in nano-USD; a tool the model does not price is free. */
export function toolCallsNano(model: ModelConfig, calls: Readonly<Record<string, number>> | undefined): number {
  if (calls === undefined) return 0;
  const tools = pricedFeaturesOf(model).serverTools;
  let nano = 0;
  for (const [name, count] of Object.entries(calls)) nano += usdToNano(tools.get(name)?.usdPerCall ?? 0) * count;
  return nano;
}

/**
 * The features a usage row shows: the server-tool calls the node reported (priced or not),
 * the service tier and the betas whose prices applied; undefined when there are none.
 */
export function bookedFeatures(
  calls: Readonly<Record<string, number>> | undefined,
  tier: string | undefined,
  betas: readonly string[],
): BookedFeatures | undefined {
  const anyCalls = calls !== undefined && Object.keys(calls).length > 0;
  if (!anyCalls && tier === undefined && betas.length === 0) return undefined;
  return {
    ...(anyCalls ? { server_tool_calls: calls } : {}),
    ...(tier === undefined ? {} : { service_tier: tier }),
    ...(betas.length === 0 ? {} : { betas }),
  };
}
