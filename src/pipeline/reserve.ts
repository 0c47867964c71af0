import type { RequestCharge } from '../billing/billing.js';
import type { FeatureUse } from '../billing/feature-prices.js';
import type { LeftOut } from '../billing/unresolved-inputs.js';
import type { ModelConfig, ReasoningEffort } from '../config/gateway-config.js';
import { gatewayError } from '../errors/gateway-error.js';
import type { GatewayServices } from '../gateway-services.js';
import type { ChatRequest } from '../protocol/openai/chat-request-schema.js';
import type { Admission } from './admit.js';
import type { MaybeAsync } from '../context/when-ready.js';

/**
 * Reserves the request's worst-case cost against the key's spend limit, the account's
 * balance and the budget windows of the key, the account and the end user (402; PRODUCT.md
 * decisions 12, 20, 27). Every request that reaches a node is booked:
 * with no room left to keep its row, none is sent (503 usage_backlog_full).
 */
export function reserve(
  services: GatewayServices,
  admission: Admission,
  model: ModelConfig,
  request: ChatRequest,
  effort: ReasoningEffort | undefined,
  features?: FeatureUse,
  endUser?: string,
  leftOut?: LeftOut,
): MaybeAsync<RequestCharge> {
  if (services.usage.full) throw gatewayError('usage_backlog_full', { retryAfter: 1 });
  // The effort sizes the output cap of a request without one (PRODUCT.md decisions 19, 20).
  return services.billing.reserve(admission.key, admission.account, model, request, effort, features, endUser, leftOut);
}
