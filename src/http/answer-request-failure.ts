import type { ServerResponse } from 'node:http';
import type { RequestContext } from '../context/request-context.js';
import { asGatewayError, isClientGone } from '../errors/gateway-error.js';
import type { Logger } from '../observability/logger.js';
import { renderError } from './error-renderer.js';
import type { ErrorShape } from '../reply/error-shape.js';

/**
 * A request's failure, answered in its route's error shape (`shape`; the OpenAI envelope
 * when undefined), or nothing for a client that left. An unexpected error is logged; when
 * even the answer fails, the response is destroyed.
 */
export function answerRequestFailure(
  response: ServerResponse,
  error: unknown,
  context: RequestContext,
  shape: ErrorShape | undefined,
  logger: Logger,
): void {
  try {
    if (context.abortCause === 'client' || isClientGone(error)) return;
    const failure = asGatewayError(error);
    if (failure.code === 'internal_error')
      logger.error({ err: error, request_id: context.requestId }, 'unexpected error');
    renderError(response, failure, context, context.snapshot.config.http, shape);
  } catch (renderFailure) {
    logger.error({ err: renderFailure, request_id: context.requestId }, 'could not send the error response');
    response.destroy();
  }
}
