import type { ModelConfig, ReasoningEffort } from '../../config/gateway-config.js';
import type { ChatRequest } from './chat-request-schema.js';

/**
 * The effort to send upstream (spec 2.4, PRODUCT.md decision 6): the client's value from
 * either form, else the model's default; undefined for a model without reasoning, whose
 * reasoning parameters are dropped.
 */
export function resolveReasoningEffort(request: ChatRequest, model: ModelConfig): ReasoningEffort | undefined {
  if (model.reasoning === undefined) return undefined;
  return request.reasoning_effort ?? request.reasoning?.effort ?? model.reasoning.defaultEffort;
}
