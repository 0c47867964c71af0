import { NO_FEATURE_USE, type FeatureUse } from '../../billing/feature-prices.js';
import type { ModelConfig } from '../../config/gateway-config.js';
import {
  allowsServerTool,
  pricedServerTool,
  serverToolForced,
  withoutUnlistedTier,
} from '../../billing/priced-node-features.js';
import { isRecord as isItem } from '../../validation/is-record.js';

type Item = Record<string, unknown>;

/** A Responses request as a native node may get it, and what of the model's priced features it may use. */
export interface NativeResponsesFeatures {
  readonly body: Item;
  readonly use: FeatureUse;
}

/**
 * The model's priced-feature policy on a Responses request for a node serving the API
 * natively (issue 28 finding 10, docs/keys-and-money.md): hosted tools the model does not
 * allow are withdrawn from the offer (as for translated nodes, PRODUCT.md decision 15) and a
 * `tool_choice` forcing one is a 400 naming it; when allowed ones are offered,
 * `max_tool_calls` (the calls of all of them together) is at most the largest `max_calls`
 * among them; a `service_tier` the model does not list is not forwarded. Tools declared in
 * `additional_tools` input items are offered too. Returns the body unchanged when nothing
 * applies.
 */
export function nativeResponsesFeatures(body: Item, model: ModelConfig): NativeResponsesFeatures {
  const tools: readonly unknown[] = Array.isArray(body.tools) ? body.tools : [];
  const offered: string[] = [];
  const withdrawn = new Set<string>();
  const allowedOf = (list: readonly unknown[]): unknown[] =>
    list.filter((tool) => {
      const name = isItem(tool) ? pricedServerTool('responses', tool.type) : undefined;
      if (name === undefined) return true;
      const allowed = allowsServerTool(model, name);
      if (allowed) offered.push(name);
      else withdrawn.add(name);
      return allowed;
    });
  const kept = allowedOf(tools);
  // Tools declared in `additional_tools` input items (Codex CLI) are offered too: the same policy.
  let keptAdditional = 0;
  const input = Array.isArray(body.input)
    ? (body.input as unknown[]).map((item) => {
        if (!isItem(item) || item.type !== 'additional_tools' || !Array.isArray(item.tools)) return item;
        const allowed = allowedOf(item.tools as unknown[]);
        keptAdditional += allowed.length;
        return allowed.length === item.tools.length ? item : { ...item, tools: allowed };
      })
    : body.input;
  const choice = body.tool_choice;
  const forced = isItem(choice) ? pricedServerTool('responses', choice.type) : undefined;
  if (forced !== undefined && !allowsServerTool(model, forced)) serverToolForced('tool_choice', forced);
  let native = withoutUnlistedTier(body, model);
  if (withdrawn.size > 0) native = { ...native, ...(Array.isArray(body.tools) ? { tools: kept } : {}), input };
  // Nothing left to offer: no tools and no string `tool_choice` (as the translation does).
  if (withdrawn.size > 0 && kept.length === 0 && keptAdditional === 0) {
    const { tools: _none, tool_choice: left, ...rest } = native;
    native = left === undefined || typeof left === 'string' ? rest : { ...rest, tool_choice: left };
  }
  if (offered.length === 0) return { body: native, use: NO_FEATURE_USE };
  const prices = model.pricedFeatures?.serverTools;
  const cap = Math.max(...offered.map((name) => prices?.get(name)?.maxCalls ?? 0));
  const asked = body.max_tool_calls;
  const calls = typeof asked === 'number' && asked >= 0 && asked < cap ? asked : cap;
  return { body: { ...native, max_tool_calls: calls }, use: { toolCalls: [{ tools: offered, calls }], betas: [] } };
}
