import assert from 'node:assert/strict';
import type { GatewayConfig } from '../../src/config/gateway-config.js';
import { parseConfigText } from '../../src/config/load-config.js';
import type { RunningGateway } from '../../src/main.js';
import { sseData } from './http-assertions.js';
import { startTestGateway, waitFor, withMemoryStore } from './test-gateway.js';

/** One node attempt as the request's log line reports it. */
export interface LoggedAttempt {
  node: string;
  status?: number;
  error?: string;
  ms: number;
}

/** The fields of a request log line the failover tests read. */
export interface RequestLogLine {
  request_id?: string;
  status?: number;
  error_code?: string;
  attempts?: LoggedAttempt[];
  usage?: Record<string, unknown>;
  usage_estimated?: boolean;
  total_ms?: number;
  msg?: string;
  [field: string]: unknown;
}

/**
 * Like startTestGateway, but keeps the RunningGateway (reload, services) at hand and
 * offers the helpers the failover tests share.
 */
export interface HandleGateway {
  readonly running: RunningGateway;
  readonly baseUrl: string;
  readonly origin: string;
  logs(): RequestLogLine[];
  /** The request's log line, once written (the line is written when the response closes). */
  logLine(requestId: string | null, timeoutMs?: number): Promise<RequestLogLine>;
  /** Parses YAML the way the gateway does (for reload). */
  parse(yaml: string): GatewayConfig;
  close(): Promise<void>;
}

export async function startHandleGateway(yaml: string, env: NodeJS.ProcessEnv = {}): Promise<HandleGateway> {
  const gateway = await startTestGateway(yaml, env);
  const running = gateway.running;
  const logs = (): RequestLogLine[] => gateway.logs() as RequestLogLine[];
  return {
    running,
    baseUrl: running.baseUrl,
    origin: new URL(running.baseUrl).origin,
    logs,
    async logLine(requestId, timeoutMs = 2000) {
      assert.ok(requestId, 'the response has an x-request-id');
      await waitFor(() => logs().some((line) => line.request_id === requestId && line.msg === 'request'), timeoutMs);
      return logs().find((line) => line.request_id === requestId && line.msg === 'request') as RequestLogLine;
    },
    parse: (text) => parseConfigText(withMemoryStore(text), 'test', env),
    close: () => running.close(),
  };
}

export const MESSAGES = [{ role: 'user', content: 'Name three kinds of railway switches.' }];

/** POST /v1/chat/completions with a Bearer key; JSON body built from model + extra fields. */
export function postChat(
  baseUrl: string,
  apiKey: string,
  model: string,
  extra: Record<string, unknown> = {},
  timeoutMs = 8000,
): Promise<Response> {
  return fetch(`${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: MESSAGES, ...extra }),
    signal: AbortSignal.timeout(timeoutMs),
  });
}

/** The `data:` payloads of a whole SSE body. */
export async function readSse(response: Response): Promise<{ raw: string; data: string[] }> {
  const raw = await response.text();
  return { raw, data: sseData(raw) };
}

/** Reads an SSE body until `count` data events arrived; returns them and a promise of the rest. */
export async function readSseUntil(
  response: Response,
  count: number,
): Promise<{ first: string[]; rest: Promise<{ raw: string; data: string[] }> }> {
  assert.ok(response.body !== null, 'a body');
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let raw = '';
  while (sseData(raw).filter((line) => line !== '').length < count) {
    const { done, value } = await reader.read();
    if (done) break;
    raw += decoder.decode(value, { stream: true });
  }
  const first = sseData(raw);
  const rest = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      raw += decoder.decode(value, { stream: true });
    }
    return { raw, data: sseData(raw) };
  })();
  return { first, rest };
}

/** An admin API call with an optional Bearer key. */
export async function admin(
  origin: string,
  method: string,
  path: string,
  key: string | undefined,
  body?: unknown,
): Promise<{ status: number; body: unknown; response: Response }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key !== undefined) headers.authorization = `Bearer ${key}`;
  const init: RequestInit = { method, headers, signal: AbortSignal.timeout(5000) };
  if (body !== undefined) init.body = JSON.stringify(body);
  const response = await fetch(`${origin}/admin/v1${path}`, init);
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body: parsed, response };
}

/** A node as GET /admin/v1/nodes lists it. */
export interface NodeView {
  id: string;
  state: string;
  in_flight: number;
  error_rate: number;
  latency_ms: number | null;
  max_concurrency: number;
  cooldown_ms: number;
  [field: string]: unknown;
}

export async function listNodes(origin: string, key: string): Promise<NodeView[]> {
  const { status, body } = await admin(origin, 'GET', '/nodes', key);
  assert.equal(status, 200, `GET /admin/v1/nodes: ${JSON.stringify(body)}`);
  return (body as { data: NodeView[] }).data;
}

export async function nodeView(origin: string, key: string, id: string): Promise<NodeView> {
  const node = (await listNodes(origin, key)).find((entry) => entry.id === id);
  assert.ok(node, `node ${id} is listed`);
  return node;
}

/** Resolves once `predicate` holds (async), polling every 20 ms. */
export async function waitForAsync(predicate: () => Promise<boolean>, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
