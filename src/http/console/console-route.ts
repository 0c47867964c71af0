import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestContext } from '../../context/request-context.js';
import { gatewayError, invalidParameter } from '../../errors/gateway-error.js';
import { because } from '../../errors/reasons.js';
import type { GatewayServices } from '../../gateway-services.js';
import { clientIp, isFromTrustedProxy } from '../../limits/client-ip.js';
import { authenticateLimited } from '../../pipeline/auth-failures.js';
import { adminOperationsHandler } from '../admin/admin-route.js';
import { isAdminKey } from '../admin/authenticate-admin.js';
import { readJsonObject } from '../admin/read-json-body.js';
import { sendJson } from '../../reply/send-json.js';
import { responseHeaders } from '../../reply/response-headers.js';
import { consoleBundleDirectory, loadConsoleBundle, type ConsoleAsset, type ConsoleBundle } from './console-assets.js';
import { readCookie, SESSION_COOKIE, sessionCookie } from './console-cookie.js';
import { ConsoleSessions, type ConsoleSession } from './console-sessions.js';
import { fieldOf } from '../../validation/field-of.js';

const SIGN_IN_BODY_LIMIT = 4 * 1024;
const ASSET_PREFIX = '/console/assets/';
const ADMIN_PREFIX = '/console/api/admin/';
/** The header a console write carries its session's token in. */
export const CSRF_HEADER = 'x-switchyard-csrf';

/** Headers on every console response: no sniffing, no framing, no referrer. */
const SAFE_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

/** The page loads only its own scripts and styles and talks only to its own origin (no CDN). */
const PAGE_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

function isWrite(method: string | undefined): boolean {
  return method !== 'GET' && method !== 'HEAD';
}

/**
 * A write must come from the console's own page: a browser says where a request comes
 * from (Sec-Fetch-Site, Origin), and another site's page gets neither right. The session
 * cookie is SameSite=Strict as well, and admin writes also carry the session's token.
 */
function refuseCrossSite(request: IncomingMessage): void {
  const site = request.headers['sec-fetch-site'];
  const origin = request.headers.origin;
  const host = request.headers.host;
  const sameOrigin =
    origin === undefined || (host !== undefined && (origin === `http://${host}` || origin === `https://${host}`));
  if ((site !== undefined && site !== 'same-origin') || !sameOrigin) {
    throw gatewayError('access_denied', { reason: because('console_cross_site') });
  }
}

function sameToken(given: string | string[] | undefined, expected: string): boolean {
  if (typeof given !== 'string' || given.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}

function sendAsset(request: IncomingMessage, response: ServerResponse, context: RequestContext, file: ConsoleAsset) {
  const gzipped = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? '')) ? file.gzipped : undefined;
  const gzip = gzipped !== undefined;
  const body = gzipped ?? file.body;
  context.record.status = 200;
  response.writeHead(200, {
    ...responseHeaders(context),
    ...SAFE_HEADERS,
    ...(file.contentType.startsWith('text/html') ? { 'content-security-policy': PAGE_POLICY } : {}),
    'content-type': file.contentType,
    'content-length': body.length,
    'cache-control': file.cacheControl,
    vary: 'accept-encoding',
    ...(gzip ? { 'content-encoding': 'gzip' } : {}),
  });
  response.end(request.method === 'HEAD' ? undefined : body);
}

/**
 * The operator console under /console (PRODUCT decision 24): its page and assets, sign-in
 * with the admin key into a session cookie, and the admin API's operations under
 * /console/api/admin/ for a signed-in session. Served only when the admin API is on.
 */
export function consoleRoute(services: GatewayServices) {
  const sessions = new ConsoleSessions(() => services.snapshot.config.console.sessionTtlSeconds);
  const operations = adminOperationsHandler(services);
  /** TLS here, or at a trusted proxy that says so (X-Forwarded-Proto: https): the cookie is then Secure. */
  const servedOverTls = (request: IncomingMessage, context: RequestContext): boolean =>
    fieldOf(request.socket, 'encrypted') === true ||
    (isFromTrustedProxy(request, context.snapshot.trustedProxies) && request.headers['x-forwarded-proto'] === 'https');
  let bundle: ConsoleBundle | undefined;

  function loadedBundle(): ConsoleBundle {
    if (bundle !== undefined) return bundle;
    const directory = consoleBundleDirectory();
    if (directory === undefined) {
      throw gatewayError('not_found', { params: { kind: 'console bundle', id: 'dist/console (run npm run build)' } });
    }
    bundle = loadConsoleBundle(directory);
    return bundle;
  }

  function sessionOf(request: IncomingMessage, context: RequestContext): ConsoleSession {
    const session = sessions.get(readCookie(request.headers.cookie, SESSION_COOKIE), context.snapshot.config.adminKey);
    if (session === undefined) throw gatewayError('console_session_required');
    return session;
  }

  function sendSession(response: ServerResponse, context: RequestContext, session: ConsoleSession, status: number) {
    sendJson(response, context, status, {
      object: 'console_session',
      csrf_token: session.csrfToken,
      expires_at: new Date(session.expiresAt).toISOString(),
      // The page's settings: where a request's trace id links to (console.trace_url), or null.
      trace_url: context.snapshot.config.console.traceUrl ?? null,
    });
  }

  async function handleSession(request: IncomingMessage, response: ServerResponse, context: RequestContext) {
    const { config, limiter, trustedProxies } = context.snapshot;
    const secure = servedOverTls(request, context);
    if (request.method === 'GET') return sendSession(response, context, sessionOf(request, context), 200);
    if (request.method === 'POST') {
      refuseCrossSite(request);
      const body = await readJsonObject(request, SIGN_IN_BODY_LIMIT, 4, config.http.bodyIdleTimeoutMs);
      const given = body.admin_key;
      if (typeof given !== 'string' || given === '' || given.length > 1024) {
        throw invalidParameter('admin_key', 'admin_key_required');
      }
      const adminKey = config.adminKey;
      if (adminKey === undefined) throw gatewayError('invalid_admin_key');
      // A wrong key counts against the address's failed-authentication limit (429 beyond it).
      await authenticateLimited(limiter, clientIp(request, trustedProxies), () => {
        if (!isAdminKey(given, adminKey)) throw gatewayError('invalid_admin_key');
      });
      const session = sessions.create(adminKey);
      response.setHeader('set-cookie', sessionCookie(session.id, config.console.sessionTtlSeconds, secure));
      return sendSession(response, context, session, 201);
    }
    if (request.method === 'DELETE') {
      refuseCrossSite(request);
      const session = sessions.get(readCookie(request.headers.cookie, SESSION_COOKIE), config.adminKey);
      if (session !== undefined) sessions.delete(session.id);
      response.setHeader('set-cookie', sessionCookie('', 0, secure));
      return sendJson(response, context, 200, { object: 'console_session', signed_out: true });
    }
    throw gatewayError('method_not_allowed', {
      params: { method: request.method, path: '/console/api/session', allow: 'GET, POST, DELETE' },
      headers: { allow: 'GET, POST, DELETE' },
    });
  }

  return async function handleConsole(
    request: IncomingMessage,
    response: ServerResponse,
    context: RequestContext,
    path: string,
  ): Promise<void> {
    for (const [name, value] of Object.entries(SAFE_HEADERS)) response.setHeader(name, value);
    if (path.startsWith('/console/api/')) {
      response.setHeader('cache-control', 'no-store');
      if (path === '/console/api/session') return handleSession(request, response, context);
      if (path.startsWith(ADMIN_PREFIX)) {
        const session = sessionOf(request, context);
        if (isWrite(request.method)) {
          refuseCrossSite(request);
          if (!sameToken(request.headers[CSRF_HEADER], session.csrfToken)) {
            throw gatewayError('access_denied', {
              reason: because('console_token_missing', { header: CSRF_HEADER }),
            });
          }
        }
        return operations(request, response, context, `/admin/v1/${path.slice(ADMIN_PREFIX.length)}`);
      }
      throw gatewayError('no_route', { params: { method: request.method, path } });
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      throw gatewayError('method_not_allowed', {
        params: { method: request.method, path, allow: 'GET, HEAD' },
        headers: { allow: 'GET, HEAD' },
      });
    }
    if (path === '/console' || path === '/console/') return sendAsset(request, response, context, loadedBundle().index);
    if (path.startsWith(ASSET_PREFIX)) {
      const file = loadedBundle().assets.get(path.slice(ASSET_PREFIX.length));
      if (file !== undefined) return sendAsset(request, response, context, file);
    }
    throw gatewayError('no_route', { params: { method: request.method, path } });
  };
}
