import type { GatewayError, UpstreamFailure } from '../errors/gateway-error.js';
import type { RequestContext } from '../context/request-context.js';
import { errorEnvelopeJson } from './error-envelope.js';

/**
 * How a front door's errors look on the wire: the body of an error the gateway answers
 * itself (statuses, headers and draining are the renderer's, the same for every door), and
 * whether a node's own error body goes out unchanged (spec 7.3).
 */
export interface ErrorShape {
  body(error: GatewayError, context: RequestContext): string;
  /** A node's client-side error is sent as the node sent it: only when it is in the door's protocol. */
  passesThrough(upstream: UpstreamFailure): boolean;
}

/** The spec's OpenAI-style envelope (spec 7.1); a node's own error passes through whatever its protocol (spec 7.3). */
export const OPENAI_ERROR_SHAPE: ErrorShape = {
  body: errorEnvelopeJson,
  passesThrough: () => true,
};
