import { gatewayError } from '../errors/gateway-error.js';
import { decodePathSegment } from '../protocol/decode-path-segment.js';
import type { AdminService } from './admin-service.js';

/** What an operation gets: the id from the path, the query string, the JSON body. */
export interface AdminInput {
  readonly id: string;
  readonly query: URLSearchParams;
  readonly body: unknown;
}

export interface AdminOperation {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Matches the path; group 1, when present, is the id. */
  readonly pattern: RegExp;
  readonly status: number;
  run(service: AdminService, input: AdminInput): Promise<unknown>;
}

const ID = '([^/]+)';
const path = (suffix: string) => new RegExp(`^/admin/v1/${suffix}$`);
const query = (input: AdminInput) => Object.fromEntries(input.query);

/**
 * The admin API's key, account and usage operations as one table: the HTTP server serves
 * it under /admin/v1 and the CLI runs the same table against the store directly, so both
 * take the same bodies, check them the same way and answer the same JSON.
 */
export const ADMIN_OPERATIONS: readonly AdminOperation[] = [
  {
    method: 'POST',
    pattern: path('accounts'),
    status: 201,
    run: (service, input) => service.createAccount(input.body),
  },
  { method: 'GET', pattern: path('accounts'), status: 200, run: (service) => service.listAccounts() },
  {
    method: 'GET',
    pattern: path(`accounts/${ID}`),
    status: 200,
    run: (service, input) => service.showAccount(input.id),
  },
  {
    method: 'PATCH',
    pattern: path(`accounts/${ID}`),
    status: 200,
    run: (service, input) => service.updateAccount(input.id, input.body),
  },
  {
    method: 'POST',
    pattern: path(`accounts/${ID}/topup`),
    status: 200,
    run: (service, input) => service.changeBalance(input.id, 'topup', input.body),
  },
  {
    method: 'POST',
    pattern: path(`accounts/${ID}/adjust`),
    status: 200,
    run: (service, input) => service.changeBalance(input.id, 'adjustment', input.body),
  },
  {
    method: 'GET',
    pattern: path(`accounts/${ID}/ledger`),
    status: 200,
    run: (service, input) => service.ledger(input.id),
  },
  { method: 'POST', pattern: path('keys'), status: 201, run: (service, input) => service.createKey(input.body) },
  { method: 'GET', pattern: path('keys'), status: 200, run: (service, input) => service.listKeys(query(input)) },
  { method: 'GET', pattern: path(`keys/${ID}`), status: 200, run: (service, input) => service.showKey(input.id) },
  {
    method: 'PATCH',
    pattern: path(`keys/${ID}`),
    status: 200,
    run: (service, input) => service.updateKey(input.id, input.body),
  },
  {
    method: 'DELETE',
    pattern: path(`keys/${ID}`),
    status: 200,
    run: (service, input) => service.setKeyState(input.id, 'delete'),
  },
  {
    method: 'POST',
    pattern: path(`keys/${ID}/block`),
    status: 200,
    run: (service, input) => service.setKeyState(input.id, 'block'),
  },
  {
    method: 'POST',
    pattern: path(`keys/${ID}/unblock`),
    status: 200,
    run: (service, input) => service.setKeyState(input.id, 'unblock'),
  },
  {
    method: 'POST',
    pattern: path(`keys/${ID}/revoke`),
    status: 200,
    run: (service, input) => service.setKeyState(input.id, 'revoke'),
  },
  {
    method: 'GET',
    pattern: path(`keys/${ID}/end-users`),
    status: 200,
    run: (service, input) => service.keyEndUsers(input.id, query(input)),
  },
  {
    method: 'POST',
    pattern: path(`keys/${ID}/rotate`),
    status: 200,
    run: (service, input) => service.rotateKey(input.id, input.body),
  },
  { method: 'GET', pattern: path('usage'), status: 200, run: (service, input) => service.usageReport(query(input)) },
  { method: 'GET', pattern: path('stats'), status: 200, run: (service, input) => service.usageStats(query(input)) },
  // The request record (PRODUCT decision 28); stats and unauthenticated before {id}, which would match them.
  {
    method: 'GET',
    pattern: path('requests'),
    status: 200,
    run: (service, input) => service.requests.list(query(input)),
  },
  {
    method: 'GET',
    pattern: path('requests/stats'),
    status: 200,
    run: (service, input) => service.requests.stats(query(input)),
  },
  {
    method: 'GET',
    pattern: path('requests/unauthenticated'),
    status: 200,
    run: (service, input) => service.requests.unauthenticated(query(input)),
  },
  {
    method: 'GET',
    pattern: path(`requests/${ID}`),
    status: 200,
    run: (service, input) => service.requests.show(input.id),
  },
];

/**
 * The route for a method and path, with the id from the path (URL-decoded; a malformed
 * escape is kept as sent, so not found); 404 for an unknown path, 405 (with Allow) for a wrong method.
 */
export function pickRoute<Route extends { readonly method: string; readonly pattern: RegExp }>(
  routes: readonly Route[],
  method: string | undefined,
  path: string,
): { route: Route; id: string } {
  const matching = routes.filter((route) => route.pattern.test(path));
  const route = matching.find((candidate) => candidate.method === method);
  if (route === undefined) {
    if (matching.length === 0) throw gatewayError('no_route', { params: { method, path } });
    const allow = matching.map((candidate) => candidate.method).join(', ');
    throw gatewayError('method_not_allowed', { params: { method, path, allow }, headers: { allow } });
  }
  return { route, id: decodePathSegment(route.pattern.exec(path)?.[1] ?? '') };
}

/** Runs the operation for a method and path (with its query string) as the CLI does; 404/405 like the API. */
export async function runAdminOperation(
  service: AdminService,
  method: string,
  target: string,
  body?: unknown,
): Promise<unknown> {
  const url = new URL(target, 'http://switchyard.invalid');
  const { route, id } = pickRoute(ADMIN_OPERATIONS, method, url.pathname);
  return route.run(service, { id, query: url.searchParams, body: body ?? {} });
}
