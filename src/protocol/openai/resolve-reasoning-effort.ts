import type { ModelConfig, ReasoningEffort } from '../../config/gateway-config.js';
import { CORE_EFFORTS, REASONING_EFFORTS } from '../../config/reasoning-efforts.js';
import type { ChatRequest } from './chat-request-schema.js';
import { invalidParameter } from '../../errors/gateway-error.js';

/**
 * The effort to send upstream (spec 2.4, PRODUCT.md decisions 6 and 19): the client's value
 * from either form, else the model's default; undefined for a model without reasoning,
 * whose low/medium/high are dropped. `none`, `minimal`, `xhigh` and `max` are taken only by
 * a model whose `reasoning.efforts` lists them: elsewhere a 400 naming the parameter where
 * the client set it (`effortParam`, from its front door: GatewayRequest.effortParam).
 */
export function resolveReasoningEffort(
  request: ChatRequest,
  model: ModelConfig,
  effortParam?: string,
): ReasoningEffort | undefined {
  const asked = request.reasoning_effort ?? request.reasoning?.effort ?? undefined;
  // low, medium and high: every reasoning model takes them, and a model without reasoning drops them.
  if (asked !== undefined && !CORE_EFFORTS.has(asked) && model.reasoning?.efforts?.has(asked) !== true) {
    const param = effortParam ?? 'reasoning_effort';
    const efforts =
      model.reasoning === undefined
        ? undefined
        : REASONING_EFFORTS.filter(
            (effort) => CORE_EFFORTS.has(effort) || model.reasoning?.efforts?.has(effort) === true,
          ).join(', ');
    throw invalidParameter(param, 'effort_not_taken', { model: model.id, effort: asked, efforts });
  }
  if (model.reasoning === undefined) return undefined;
  return asked ?? model.reasoning.defaultEffort;
}
