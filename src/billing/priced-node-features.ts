import type { ModelConfig, PricedFeatures } from '../config/gateway-config.js';
import { invalidParameter } from '../errors/gateway-error.js';

/**
 * Server tools a native node runs itself and bills per call (issue 28 finding 10), by the
 * front door whose protocol offers them, named as in `priced_features.server_tools`: the
 * tool's type without its version (`web_search_20250305` → `web_search`,
 * `web_search_preview` → `web_search`). Other typed tools (Anthropic's bash, text editor,
 * memory, computer; OpenAI's shell, apply_patch, computer use) run on the client and cost
 * tokens only; they pass.
 */
const PRICED_SERVER_TOOLS = {
  messages: new Set(['web_search', 'web_fetch', 'code_execution']),
  responses: new Set(['web_search', 'file_search', 'code_interpreter', 'image_generation']),
} as const;

/** `anthropic-beta` values a node bills apart (long context: input past 200k tokens at higher prices). */
const PRICED_BETA_PREFIXES = ['context-1m-'];

const VERSION_SUFFIX = /(_\d{8}|_\d{4}_\d{2}_\d{2})$/;

/** A tool type's name in `priced_features.server_tools`: its version date and `_preview` left out. */
export function serverToolName(type: string): string {
  return type.replace(VERSION_SUFFIX, '').replace(/_preview$/, '');
}

/** The priced server tool a tool of the door's protocol is (its name), or undefined for any other tool. */
export function pricedServerTool(door: keyof typeof PRICED_SERVER_TOOLS, type: unknown): string | undefined {
  if (typeof type !== 'string') return undefined;
  const name = serverToolName(type);
  return PRICED_SERVER_TOOLS[door].has(name) ? name : undefined;
}

/** Whether a model allows the server tool (`priced_features.server_tools` lists it). */
export function allowsServerTool(model: ModelConfig, name: string): boolean {
  return model.pricedFeatures?.serverTools.has(name) === true;
}

/** Tiers that ask for the standard service explicitly (OpenAI `default`, Anthropic `standard_only`): never dearer, always forwarded. */
const STANDARD_TIERS: ReadonlySet<string> = new Set(['default', 'standard_only']);

/** Whether a client's `service_tier` may reach the node: the standard tier, or a tier the model lists (`priced_features.service_tiers`). */
export function allowsServiceTier(model: ModelConfig, tier: unknown): boolean {
  return (
    typeof tier === 'string' && (STANDARD_TIERS.has(tier) || model.pricedFeatures?.serviceTiers.has(tier) === true)
  );
}

/** A client's `service_tier` the model does not list is left out of the node's request. */
export function withoutUnlistedTier<T extends Record<string, unknown>>(body: T, model: ModelConfig): T {
  if (body.service_tier === undefined || allowsServiceTier(model, body.service_tier)) return body;
  const { service_tier: _dropped, ...rest } = body;
  return rest as T;
}

/**
 * The `anthropic-beta` values the node may get: all but the priced ones the model does not
 * list (`priced_features.betas`); a beta the model lists is priced whatever its name.
 */
export function forwardedBetas(
  header: string | undefined,
  features: PricedFeatures | undefined,
): { readonly header: string | undefined; readonly priced: readonly string[] } {
  if (header === undefined) return { header, priced: [] };
  const kept: string[] = [];
  const priced: string[] = [];
  for (const value of header.split(',')) {
    const beta = value.trim();
    if (beta === '') continue;
    if (features?.betas.has(beta) === true) priced.push(beta);
    else if (PRICED_BETA_PREFIXES.some((prefix) => beta.startsWith(prefix))) continue;
    kept.push(beta);
  }
  return { header: kept.length === 0 ? undefined : kept.join(','), priced };
}

/** 400 naming the `tool_choice` that forces a server tool the model does not allow. */
export function serverToolForced(param: string, tool: string): never {
  throw invalidParameter(param, 'server_tool_not_allowed', { tool });
}
