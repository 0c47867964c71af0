import { checkAccess } from '../billing/access-policy.js';
import type { ModelConfig, ReasoningEffort } from '../config/gateway-config.js';
import type { ModelCatalog } from '../config/model-catalog.js';
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
 * The model the request names, by its id or an alias (404 model_unavailable when none
 * matches), then the account's and key's policy over the model served (403 access_denied: models, streaming, the effort
 * ceiling), with the reasoning effort resolved against the model (PRODUCT.md decision 6).
 */
export function authorize(models: ModelCatalog, admission: Admission, request: GatewayRequest): Authorization {
  const model = models.resolve(request.chat.model);
  if (model === undefined)
    throw gatewayError('model_unavailable', { param: 'model', params: { model: request.chat.model } });
  const effort = checkAccess(admission.key.record, admission.account?.record, model, {
    stream: request.stream,
    effort: resolveReasoningEffort(request.chat, model, request.effortParam),
    effortParam: request.effortParam,
  });
  return { model, effort };
}
