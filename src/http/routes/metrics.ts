import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayServices } from '../../gateway-services.js';
import type { RequestContext } from '../../context/request-context.js';
import { clientIp } from '../../limits/client-ip.js';
import { authenticateLimited } from '../../pipeline/auth-failures.js';
import { authenticateAdmin } from '../admin/authenticate-admin.js';
import { responseHeaders } from '../../reply/response-headers.js';

/**
 * GET /metrics in the Prometheus text format. On the main listener it needs the admin key
 * (`Authorization: Bearer <admin_key>`; wrong ones limited per client address); on the separate `metrics.listen` address it is open.
 */
export function metricsRoute(services: GatewayServices, options: { readonly requireAdminKey: boolean }) {
  return async function handleMetrics(
    request: IncomingMessage,
    response: ServerResponse,
    context: RequestContext,
  ): Promise<void> {
    if (options.requireAdminKey) {
      const { snapshot } = context;
      await authenticateLimited(snapshot.limiter, clientIp(request, snapshot.trustedProxies), () =>
        authenticateAdmin(request.headers.authorization, snapshot.config.adminKey),
      );
    }
    const body = await services.metrics.render();
    context.record.status = 200;
    response.writeHead(200, {
      ...responseHeaders(context),
      'content-type': services.metrics.contentType,
      'content-length': Buffer.byteLength(body),
      'cache-control': 'no-store',
    });
    response.end(body);
  };
}
