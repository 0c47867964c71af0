/** Calls to the gateway from the console page: the session, and the admin API under /console/api/admin. */

/** An answer that was not 2xx: the status, the gateway's error code and its message (in the page's language). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

let csrfToken = '';
let traceUrl: string | null = null;
let onSignedOut: () => void = () => undefined;

/** Where a request's trace id links to (`console.trace_url` with the id in place of `{trace_id}`); undefined without one. */
export function traceLink(traceId: string): string | undefined {
  return traceUrl === null ? undefined : traceUrl.replaceAll('{trace_id}', encodeURIComponent(traceId));
}

/** Called when an answer says the session is gone (expired, signed out elsewhere, restart). */
export function whenSignedOut(listener: () => void): void {
  onSignedOut = listener;
}

/** `quiet`: a 401 is only this call's answer (the first visit's session check), not news of a session that ended. */
async function request<T>(method: string, path: string, body?: unknown, quiet = false): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-switchyard-csrf'] = csrfToken;
  const response = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!response.ok) {
    const error = (parsed as { error?: { message?: string; code?: string } } | undefined)?.error;
    if (response.status === 401 && error?.code === 'console_session_required' && !quiet) onSignedOut();
    throw new ApiError(response.status, error?.message ?? `HTTP ${response.status}`, error?.code);
  }
  return parsed as T;
}

interface SessionAnswer {
  csrf_token: string;
  expires_at: string;
  trace_url?: string | null;
}

function takeSession(answer: SessionAnswer): void {
  csrfToken = answer.csrf_token;
  traceUrl = answer.trace_url ?? null;
}

/**
 * Whether this browser has a live session (and takes its write token). A first visit has
 * no cookie: that is the sign-in page, not "your session has ended".
 */
export async function resumeSession(): Promise<boolean> {
  try {
    takeSession(await request<SessionAnswer>('GET', '/console/api/session', undefined, true));
    return true;
  } catch {
    return false;
  }
}

export async function signIn(adminKey: string): Promise<void> {
  takeSession(await request<SessionAnswer>('POST', '/console/api/session', { admin_key: adminKey }));
}

export async function signOut(): Promise<void> {
  await request('DELETE', '/console/api/session');
  csrfToken = '';
}

/** An admin API call (`path` as under /admin/v1, e.g. `/keys`). */
export function admin<T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
  return request<T>(method, `/console/api/admin${path}`, body);
}

/** A query string of the non-empty values. */
export function queryString(values: Record<string, string | number | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(values))
    if (value !== undefined && value !== '') query.set(name, String(value));
  const text = query.toString();
  return text === '' ? '' : `?${text}`;
}
