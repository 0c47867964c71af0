import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ModelConfig } from '../../config/gateway-config.js';
import type { GatewayServices } from '../../gateway-services.js';
import { authenticate } from '../../pipeline/authenticate.js';
import type { RequestContext } from '../../pipeline/request-context.js';
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

/** GET /v1/models (spec 4.2). */
export function modelsRoute(services: GatewayServices) {
  // Rendered once per model set; the set changes only on reload.
  let renderedFor: GatewayServices['models'] | undefined;
  let body = '';
  return async function handleModels(request: IncomingMessage, response: ServerResponse, context: RequestContext): Promise<void> {
    authenticate(request.headers.authorization, services.keys, context);
    if (renderedFor !== services.models) {
      renderedFor = services.models;
      body = JSON.stringify({ object: 'list', data: [...services.models.values()].map(modelRecord) });
    }
    context.record.status = 200;
    response.writeHead(200, { ...responseHeaders(context), 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    response.end(body);
  };
}
