import { checkAccess } from '../billing/access-policy.js';
import type { ModelConfig, ReasoningEffort } from '../config/gateway-config.js';
import { gatewayError } from '../errors/gateway-error.js';
import { resolveReasoningEffort } from '../protocol/openai/resolve-reasoning-effort.js';
import type { Admission } from './admit.js';
import type { GatewayRequest } from './front-door.js';

/** What the request may do: the model it asked for and the reasoning effort to request. */
export interface Authorization {
  readonly model: ModelConfig;
  readonly effort: ReasoningEffort | undefined;
}

/**
 * The model the request names (404 model_unavailable when there is none by that id), then
 * the account's and key's policy over it (403 access_denied: models, streaming, the effort
 * ceiling), with the reasoning effort resolved against the model (PRODUCT.md decision 6).
 */
export function authorize(
  models: ReadonlyMap<string, ModelConfig>,
  admission: Admission,
  request: GatewayRequest,
): Authorization {
  const model = models.get(request.chat.model);
  if (model === undefined)
    throw gatewayError('model_unavailable', { param: 'model', params: { model: request.chat.model } });
  const effort = checkAccess(admission.key.record, admission.account?.record, model, {
    stream: request.stream,
    effort: resolveReasoningEffort(request.chat, model),
    effortParam: request.effortParam,
  });
  return { model, effort };
}
