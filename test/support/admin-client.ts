import assert from 'node:assert/strict';

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
