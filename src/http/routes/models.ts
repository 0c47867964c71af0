import type { IncomingMessage, ServerResponse } from 'node:http';
import { mayUseModel } from '../../billing/access-policy.js';
import type { ModelConfig } from '../../config/gateway-config.js';
import type { ModelCatalog } from '../../config/model-catalog.js';
import { gatewayError } from '../../errors/gateway-error.js';
import type { GatewayServices } from '../../gateway-services.js';
import { admit } from '../../pipeline/admit.js';
import { apiKeyAuthorization } from '../../front-doors/messages/api-key-authorization.js';
import { credentialsOf } from '../credentials.js';
import type { RequestContext } from '../../context/request-context.js';
import { sendJsonText } from '../../reply/send-json.js';
import { errorEnvelopeJson } from '../../reply/error-envelope.js';
import type { ErrorShape } from '../../reply/error-shape.js';
import { messagesErrorBody } from '../../front-doors/messages/messages-error.js';
import { decodePathSegment } from '../../protocol/decode-path-segment.js';

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

/** A model in Anthropic's `ModelInfo` shape (inbound-protocols 1.12). */
export function anthropicModelRecord(model: ModelConfig) {
  return {
    type: 'model',
    id: model.id,
    display_name: model.id,
    created_at: new Date(model.created * 1000).toISOString().replace('.000Z', 'Z'),
    max_input_tokens: model.contextLength ?? null,
    max_tokens: model.maxOutputTokens ?? null,
    capabilities: null,
  };
}

/**
 * Whether a request asks for Anthropic's shapes (PRODUCT.md decision 16: it carries
 * `anthropic-version`); its errors then take Anthropic's shape too (MODELS_ERROR_SHAPE).
 */
function wantsAnthropicShape(request: IncomingMessage, context: RequestContext): boolean {
  const anthropic = request.headers['anthropic-version'] !== undefined;
  if (anthropic) context.record.frontDoor = 'messages';
  return anthropic;
}

/** Errors of the model routes: Anthropic's shape for an Anthropic client, the spec's otherwise. */
export const MODELS_ERROR_SHAPE: ErrorShape = {
  body: (error, context) =>
    context.record.frontDoor === 'messages' ? messagesErrorBody(error, context) : errorEnvelopeJson(error, context),
  passesThrough: () => true,
};

/** Most models on one page of Anthropic's list (inbound-protocols 1.12). */
const MAX_PAGE = 1000;
const DEFAULT_PAGE = 20;

/** One page of Anthropic's model list: `limit`, `after_id`, `before_id` as the SDK pages with them. */
function anthropicModelList(models: readonly ModelConfig[], url: string | undefined): string {
  const query = new URL(url ?? '/', 'http://localhost').searchParams;
  const asked = Number.parseInt(query.get('limit') ?? '', 10);
  const limit = Number.isFinite(asked) ? Math.min(MAX_PAGE, Math.max(1, asked)) : DEFAULT_PAGE;
  const after = query.get('after_id');
  const before = query.get('before_id');
  let from = 0;
  let to = models.length;
  if (after !== null) from = models.findIndex((model) => model.id === after) + 1;
  if (before !== null)
    to = Math.max(
      0,
      models.findIndex((model) => model.id === before),
    );
  const page =
    before !== null && after === null
      ? models.slice(Math.max(from, to - limit), to)
      : models.slice(from, Math.min(to, from + limit));
  const hasMore = before !== null && after === null ? to - limit > from : from + limit < to;
  return JSON.stringify({
    data: page.map(anthropicModelRecord),
    has_more: hasMore,
    first_id: page[0]?.id ?? null,
    last_id: page.at(-1)?.id ?? null,
  });
}

/**
 * GET /v1/models (spec 4.2): only the models the caller's key and account may use (decision 13);
 * in Anthropic's list shape when the request carries `anthropic-version` (decision 16), so
 * Claude Code's gateway discovery finds them (rule A8).
 */
export function modelsRoute(services: GatewayServices) {
  // The full list is rendered once per model set (the set changes only on reload); a
  // restricted key gets its own rendering.
  let renderedFor: ModelCatalog | undefined;
  let everything = '';
  return async function handleModels(
    request: IncomingMessage,
    response: ServerResponse,
    context: RequestContext,
  ): Promise<void> {
    const anthropic = wantsAnthropicShape(request, context);
    // Off the hot path: a plain await, ready or not.
    const { key, account } = await admit(
      services,
      credentialsOf(request, context, apiKeyAuthorization(request)),
      context,
    );
    const { models } = context.snapshot;
    if (renderedFor !== models) {
      renderedFor = models;
      everything = JSON.stringify({ object: 'list', data: [...models.values()].map(modelRecord) });
    }
    const restricted = key.record.allowedModels !== null || (account?.record.allowedModels ?? null) !== null;
    const body = anthropic
      ? anthropicModelList(
          [...models.values()].filter((model) => mayUseModel(key.record, account?.record, model.id)),
          request.url,
        )
      : restricted
        ? JSON.stringify({
            object: 'list',
            data: [...models.values()]
              .filter((model) => mayUseModel(key.record, account?.record, model.id))
              .map(modelRecord),
          })
        : everything;
    sendJsonText(response, context, 200, body);
  };
}

/** Where a model's own address begins: GET /v1/models/{id}. */
export const MODEL_PATH_PREFIX = '/v1/models/';

/**
 * The model id a /v1/models/{id} path names: everything after the prefix, URL-decoded,
 * slashes included (ids such as `Qwen/Qwen3-32B`). A malformed escape is kept as sent.
 */
export function modelIdOfPath(path: string): string {
  return decodePathSegment(path.slice(MODEL_PATH_PREFIX.length));
}

/**
 * GET /v1/models/{id}: one model record in OpenAI's model shape (what `client.models.retrieve()`
 * reads), admitted like the list; 404 model_unavailable for a model that does not exist or
 * that the caller's key or account may not use (the list does not show it either). An id
 * that is an alias (exact or a pattern's match) gets its model's record under the id asked;
 * the list shows model ids only, never aliases.
 */
export function modelRoute(services: GatewayServices) {
  return async function handleModel(
    request: IncomingMessage,
    response: ServerResponse,
    context: RequestContext,
    path: string,
  ): Promise<void> {
    const anthropic = wantsAnthropicShape(request, context);
    // Off the hot path: a plain await, ready or not.
    const { key, account } = await admit(
      services,
      credentialsOf(request, context, apiKeyAuthorization(request)),
      context,
    );
    const id = modelIdOfPath(path);
    const model = context.snapshot.models.resolve(id);
    if (model === undefined || !mayUseModel(key.record, account?.record, model.id)) {
      throw gatewayError('model_unavailable', { params: { model: id } });
    }
    // An alias is answered under the id asked, as a request sent with it would be.
    const record = anthropic ? anthropicModelRecord(model) : modelRecord(model);
    const body = JSON.stringify(id === model.id ? record : { ...record, id });
    sendJsonText(response, context, 200, body);
  };
}
