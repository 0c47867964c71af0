import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestContext } from '../../context/request-context.js';
import { gatewayError, validationFailed } from '../../errors/gateway-error.js';
import type { GatewayServices } from '../../gateway-services.js';
import { admit } from '../../pipeline/admit.js';
import { inputItemsPage, type InputItemsQuery } from '../../responses-state/input-items-page.js';
import { responseOwner } from '../../responses-state/response-owner.js';
import { sendJson } from '../../reply/send-json.js';
import { credentialsOf } from '../credentials.js';
import { decodePathSegment } from '../../protocol/decode-path-segment.js';

/** Where a stored response's own addresses begin: /v1/responses/{id}, /v1/responses/{id}/input_items. */
export const STORED_RESPONSE_PATH_PREFIX = '/v1/responses/';

/** `limit`, `order` and `after` of an input_items query (400 naming the param); `include` is accepted and changes nothing. */
function inputItemsQueryOf(query: URLSearchParams): InputItemsQuery {
  const limitText = query.get('limit');
  const limit = limitText === null ? 20 : /^\d{1,3}$/.test(limitText) ? Number(limitText) : Number.NaN;
  if (!(limit >= 1 && limit <= 100)) {
    throw validationFailed('limit', 'input_items_limit');
  }
  const order = query.get('order') ?? 'desc';
  if (order !== 'asc' && order !== 'desc') {
    throw validationFailed('order', 'input_items_order');
  }
  return { limit, order, after: query.get('after') ?? undefined };
}

/**
 * GET /v1/responses/{id}, DELETE /v1/responses/{id} and GET /v1/responses/{id}/input_items
 * (PRODUCT.md decision 17, inbound-protocols.md 2.11): admitted like every API route (401,
 * 429), scoped to the caller's account — another account's response, a deleted or an
 * expired one is 404 response_not_found. Other methods are 405; other paths below
 * /v1/responses/ (cancel, compact) are 404 no_route.
 */
export function storedResponsesRoute(services: GatewayServices) {
  return async function handleStoredResponse(
    request: IncomingMessage,
    response: ServerResponse,
    context: RequestContext,
    path: string,
  ): Promise<void> {
    const segments = path.slice(STORED_RESPONSE_PATH_PREFIX.length).split('/');
    const [rawId = '', what] = segments;
    const items = what === 'input_items' && segments.length === 2;
    if (rawId === '' || (segments.length > 1 && !items)) {
      throw gatewayError('no_route', { params: { method: request.method, path } });
    }
    const allow = items ? 'GET' : 'GET, DELETE';
    if (request.method !== 'GET' && !(request.method === 'DELETE' && !items)) {
      throw gatewayError(request.method === 'POST' ? 'no_route' : 'method_not_allowed', {
        params: { method: request.method, path, allow },
        headers: request.method === 'POST' ? undefined : { allow },
      });
    }
    const admission = await admit(services, credentialsOf(request, context), context);
    const id = decodePathSegment(rawId);
    const owner = responseOwner(admission);
    const query = new URLSearchParams(request.url?.slice(path.length + 1) ?? '');
    const notFound = () => gatewayError('response_not_found', { params: { id } });

    if (request.method === 'DELETE') {
      // An id no store could hold (a NUL byte, over 256 characters) is not found without a store read.
      if (!(await services.responses.delete(owner, id))) throw notFound();
      sendJson(response, context, 200, { id, object: 'response', deleted: true });
      return;
    }
    const pageQuery = items ? inputItemsQueryOf(query) : undefined;
    if (!items && query.get('stream') === 'true') {
      throw validationFailed('stream', 'stored_response_not_stream');
    }
    const stored = await services.responses.get(owner, id);
    if (stored === undefined) throw notFound();
    if (pageQuery === undefined) {
      sendJson(response, context, 200, stored.response);
      return;
    }
    const page = inputItemsPage(stored.inputItems, pageQuery);
    if (page === undefined) {
      throw validationFailed('after', 'input_item_not_found', { response: id, item: String(pageQuery.after) });
    }
    sendJson(response, context, 200, page);
  };
}
