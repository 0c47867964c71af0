import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { RequestContext } from '../context/request-context.js';
import type { GatewayServices } from '../gateway-services.js';
import { clientIp } from '../limits/client-ip.js';
import { requestLineLogger, type Logger } from '../observability/logger.js';
import { requestLogRow } from '../request-log/request-log-row.js';
import type { RequestArea } from './request-area.js';

/** What is done once a request is over: handler finished and response closed. */
export type FinishRequest = (
  request: IncomingMessage,
  context: RequestContext,
  path: string,
  area: RequestArea,
  door: string,
) => void;

/**
 * The end of every request: its trace span closed, its one log line, its metrics, and for a
 * client's request its request record (or, without a valid key, a count per address and reason).
 */
export function requestFinisher(services: GatewayServices, logger: Logger): FinishRequest {
  const requestLog = requestLineLogger(logger);
  return function finished(request, context, path, area, door) {
    const totalMs = Math.round((performance.now() - context.startedAt) * 100) / 100;
    if (area === 'ops') {
      requestLog.write('debug', { context, method: request.method, path, totalMs });
      return;
    }
    context.trace?.end(context);
    requestLog.write('info', { context, method: request.method, path, totalMs });
    // The operator's calls (admin API, console) are counted apart from the clients' (PRODUCT decision 30),
    // and are not in the request record.
    if (area !== 'client') {
      services.metrics.observeOperatorRequest(area, context.record);
      return;
    }
    services.metrics.observeRequest(context.record, totalMs, door);
    const records = services.requestRecords;
    if (records === undefined) return;
    // A request with a valid key gets a record; one without is only counted per address and reason.
    if (context.record.keyId !== undefined) {
      records.add(requestLogRow(context, request.method, path, totalMs, Date.now()));
    } else {
      const reason = context.record.clientAborted ? 'client_aborted' : (context.record.errorCode ?? 'none');
      records.countUnauthenticated(clientIp(request, context.snapshot.trustedProxies), reason);
    }
  };
}
