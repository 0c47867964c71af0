import type { FeatureUse } from '../../billing/feature-prices.js';
import type { ModelConfig } from '../../config/gateway-config.js';
import type { MessagesRequest } from './messages-request-schema.js';
import {
  allowsServerTool,
  forwardedBetas,
  pricedServerTool,
  serverToolForced,
  withoutUnlistedTier,
} from '../../billing/priced-node-features.js';

/** Server tools whose calls a Messages request caps per tool (`max_uses`). */
const CAPPED_BY_MAX_USES: ReadonlySet<string> = new Set(['web_search', 'web_fetch']);

/** A Messages request as an Anthropic node may get it, and what of the model's priced features it may use. */
export interface NativeMessagesFeatures {
  readonly body: MessagesRequest;
  readonly headers: Readonly<Record<string, string>>;
  readonly use: FeatureUse;
}

/**
 * The model's priced-feature policy on a Messages request for an Anthropic node (issue 28
 * finding 10, docs/keys-and-money.md): server tools the model does not allow are withdrawn
 * from the offer (as for translated nodes, PRODUCT.md decision 15) and a `tool_choice`
 * forcing one is a 400 naming it; an allowed one keeps at most its `max_calls`
 * (`max_uses` where the tool has it); a `service_tier` or a priced `anthropic-beta` the
 * model does not list is not forwarded. Returns the body unchanged when nothing applies.
 */
export function nativeMessagesFeatures(
  body: MessagesRequest,
  headers: Readonly<Record<string, string>>,
  model: ModelConfig,
): NativeMessagesFeatures {
  const toolCalls: { tools: string[]; calls: number }[] = [];
  const withdrawn = new Set<string>();
  let tools = body.tools ?? undefined;
  if (tools?.some((tool) => pricedServerTool('messages', tool.type) !== undefined)) {
    tools = tools.flatMap((tool) => {
      const name = pricedServerTool('messages', tool.type);
      if (name === undefined) return [tool];
      if (!allowsServerTool(model, name)) {
        withdrawn.add(tool.name);
        return [];
      }
      const maxCalls = model.pricedFeatures?.serverTools.get(name)?.maxCalls ?? 0;
      const fields: Record<string, unknown> = tool;
      const asked = fields.max_uses;
      const calls = typeof asked === 'number' && asked >= 0 && asked < maxCalls ? asked : maxCalls;
      toolCalls.push({ tools: [name], calls });
      return [CAPPED_BY_MAX_USES.has(name) ? { ...tool, max_uses: calls } : tool];
    });
  }
  const choice = body.tool_choice ?? undefined;
  if (choice?.type === 'tool' && choice.name !== undefined && withdrawn.has(choice.name))
    serverToolForced('tool_choice.name', choice.name);
  // `any` with only withdrawn tools offered forces one of them (a translated node refuses it too).
  const [firstWithdrawn] = withdrawn;
  if (choice?.type === 'any' && firstWithdrawn !== undefined && tools?.length === 0)
    serverToolForced('tool_choice', firstWithdrawn);
  let native: MessagesRequest = withoutUnlistedTier(body, model);
  if (tools !== (body.tools ?? undefined)) {
    const { tools: _offered, ...rest } = native;
    native = tools === undefined || tools.length === 0 ? rest : { ...rest, tools };
    if (native.tools === undefined && native.tool_choice?.type !== 'none') delete native.tool_choice;
  }
  const betas = forwardedBetas(headers['anthropic-beta'], model.pricedFeatures);
  let forwarded = headers;
  if (betas.header !== headers['anthropic-beta']) {
    const { 'anthropic-beta': _all, ...rest } = headers;
    forwarded = betas.header === undefined ? rest : { ...rest, 'anthropic-beta': betas.header };
  }
  return { body: native, headers: forwarded, use: { toolCalls, betas: betas.priced } };
}
