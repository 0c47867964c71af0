import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { ConfigurationSnapshot } from '../configuration-snapshot.js';
import type { RequestContext } from '../context/request-context.js';
import { Cancellation } from '../upstream/cancellation.js';
import { preferredLanguage } from './preferred-language.js';
import { correlationIdFor, newRequestId } from './request-ids.js';

/** A fresh per-request context: ids, language, cancellation, and the configuration snapshot it runs under. */
export function newRequestContext(
  request: IncomingMessage,
  snapshot: ConfigurationSnapshot,
  cancellation: Cancellation = new Cancellation(),
): RequestContext {
  const requestId = newRequestId();
  return {
    requestId,
    correlationId: correlationIdFor(request.headers['x-correlation-id'], requestId),
    language: preferredLanguage(request.headers['accept-language']),
    startedAt: performance.now(),
    snapshot,
    cancellation,
    abortCause: undefined,
    record: { frontDoor: 'chat', stream: false, attempts: [], clientAborted: false },
  };
}
