import type { IncomingMessage, ServerResponse } from 'node:http';
import { mayUseModel } from '../../billing/access-policy.js';
import type { ModelConfig } from '../../config/gateway-config.js';
import type { GatewayServices } from '../../gateway-services.js';
import { admit } from '../../pipeline/admit.js';
import { credentialsOf } from '../credentials.js';
import type { RequestContext } from '../../context/request-context.js';
import { responseHeaders } from '../response-headers.js';

/** A model record (PRODUCT.md decision 13): OpenAI's list entry plus what a caller needs to choose. */
export function modelRecord(model: ModelConfig) {
  return {
    id: model.id,
    object: 'model',
    created: model.created,
    owned_by: model.ownedBy,
    context_length: model.contextLength ?? null,
    supports_reasoning: model.reasoning !== undefined,
    default_reasoning_effort: model.reasoning?.defaultEffort ?? null,
    pricing: model.pricing
      ? {
          currency: 'USD',
          unit: '1M tokens',
          input: model.pricing.input,
          output: model.pricing.output,
          cached_input: model.pricing.cachedInput ?? null,
          reasoning: model.pricing.reasoning ?? null,
        }
      : null,
  };
}

/** GET /v1/models (spec 4.2): only the models the caller's key and account may use (decision 13). */
export function modelsRoute(services: GatewayServices) {
  // The full list is rendered once per model set (the set changes only on reload); a
  // restricted key gets its own rendering.
  let renderedFor: GatewayServices['models'] | undefined;
  let everything = '';
  return async function handleModels(request: IncomingMessage, response: ServerResponse, context: RequestContext): Promise<void> {
    const admitted = admit(services, credentialsOf(request, services), context);
    const { key, account } = admitted instanceof Promise ? await admitted : admitted;
    if (renderedFor !== services.models) {
      renderedFor = services.models;
      everything = JSON.stringify({ object: 'list', data: [...services.models.values()].map(modelRecord) });
    }
    const restricted = key.record.allowedModels !== null || (account?.record.allowedModels ?? null) !== null;
    const body = restricted
      ? JSON.stringify({
          object: 'list',
          data: [...services.models.values()].filter((model) => mayUseModel(key.record, account?.record, model.id)).map(modelRecord),
        })
      : everything;
    context.record.status = 200;
    response.writeHead(200, { ...responseHeaders(context), 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    response.end(body);
  };
}
