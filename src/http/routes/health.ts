import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayServices } from '../../gateway-services.js';
import type { RequestContext } from '../../context/request-context.js';
import { sendJson } from '../../reply/send-json.js';

/** GET /healthz: the process is alive and its event loop turns. No auth, no node traffic. */
export function healthzRoute() {
  return async function handleHealthz(
    _request: IncomingMessage,
    response: ServerResponse,
    context: RequestContext,
  ): Promise<void> {
    sendJson(response, context, 200, { status: 'ok' });
  };
}

/**
 * GET /readyz: 200 when every readiness check passes and the gateway is not shutting
 * down, else 503; the body names the failing checks. No auth, no node traffic.
 */
export function readyzRoute(services: GatewayServices, shuttingDown: () => boolean) {
  return async function handleReadyz(
    _request: IncomingMessage,
    response: ServerResponse,
    context: RequestContext,
  ): Promise<void> {
    const results = await services.readiness.run();
    const checks = results.map((result) =>
      result.ok ? { name: result.name, ok: true } : { name: result.name, ok: false, reason: result.reason },
    );
    if (shuttingDown()) checks.push({ name: 'shutting_down', ok: false, reason: 'the gateway is shutting down' });
    const failing = checks.filter((check) => !check.ok).map((check) => check.name);
    response.setHeader('cache-control', 'no-store');
    sendJson(response, context, failing.length === 0 ? 200 : 503, {
      status: failing.length === 0 ? 'ready' : 'unready',
      failing,
      checks,
    });
  };
}
