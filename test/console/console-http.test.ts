import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { admin } from '../support/admin-client.js';
import { ensureConsoleBundle } from '../support/console-bundle.js';
import { chatBody, postChat } from '../support/post-chat.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from '../support/wait-for.js';

// The console over plain HTTP: what a browser is told to do with the session cookie, what
// the gateway refuses (no session, an expired one, a cross-site write), and the admin API's
// stats and models endpoints behind the charts and the Models page.

const ADMIN_KEY = 'console-admin-key-0123456789';
const API_KEY = 'sk-console-http-test-0000000001';

const YAML = `
admin_key: ${ADMIN_KEY}
console: { session_ttl_seconds: 3600 }
nodes:
  - { id: sim-a, provider: simulated, max_concurrency: 8 }
models:
  - id: chat
    pricing: { input: 1.0, output: 2.0 }
    routes: [{ node: sim-a, model: simulated-chat }]
accounts:
  - { id: acme, balance: 10 }
keys:
  - { key: ${API_KEY}, account: acme }
`;

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

async function call(
  gateway: TestGateway,
  method: string,
  path: string,
  options: { cookie?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.cookie !== undefined) headers.cookie = options.cookie;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${gateway.origin}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: AbortSignal.timeout(5_000),
  });
  const text = await response.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { text };
  }
  return { status: response.status, headers: response.headers, body };
}

const errorCode = (answer: Answer) => (answer.body.error as { code?: string } | undefined)?.code;

/** Signs in; the cookie to send back and the session's write token. */
async function signIn(gateway: TestGateway): Promise<{ cookie: string; csrf: string; setCookie: string }> {
  const answer = await call(gateway, 'POST', '/console/api/session', { body: { admin_key: ADMIN_KEY } });
  assert.equal(answer.status, 201, JSON.stringify(answer.body));
  const setCookie = answer.headers.get('set-cookie') ?? '';
  return { cookie: setCookie.split(';')[0] as string, csrf: answer.body.csrf_token as string, setCookie };
}

describe('console over HTTP', () => {
  let gateway: TestGateway;
  before(async () => {
    await ensureConsoleBundle();
    gateway = await startTestGateway(YAML);
  });
  after(() => gateway?.close());

  test('the page is served with no-cache and a strict content policy; its assets are hashed, immutable and gzipped', async () => {
    const page = await fetch(`${gateway.origin}/console`, { signal: AbortSignal.timeout(5_000) });
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.equal(page.headers.get('cache-control'), 'no-cache');
    assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    assert.equal(page.headers.get('x-frame-options'), 'DENY');
    const html = await page.text();
    const assets = [...html.matchAll(/\/console\/assets\/([\w.-]+)/g)].map((match) => match[1] as string);
    assert.ok(
      assets.some((name) => /^main-\w+\.js$/.test(name)),
      `a hashed script in ${html}`,
    );
    assert.doesNotMatch(html, /https?:\/\//, 'nothing loaded from another origin (no CDN)');
    for (const name of assets) {
      const asset = await fetch(`${gateway.origin}/console/assets/${name}`, {
        headers: { 'accept-encoding': 'gzip' },
        signal: AbortSignal.timeout(5_000),
      });
      assert.equal(asset.status, 200, name);
      assert.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      assert.equal(asset.headers.get('content-encoding'), 'gzip');
      assert.ok((await asset.arrayBuffer()).byteLength > 0);
    }
    assert.equal((await call(gateway, 'GET', '/console/assets/nope-123.js')).status, 404);
  });

  test('a wrong admin key gets 401 and no cookie', async () => {
    const answer = await call(gateway, 'POST', '/console/api/session', {
      body: { admin_key: 'not-the-admin-key-at-all' },
    });
    assert.equal(answer.status, 401);
    assert.equal(errorCode(answer), 'invalid_api_key');
    assert.equal(answer.headers.get('set-cookie'), null);
    const missing = await call(gateway, 'POST', '/console/api/session', { body: {} });
    assert.equal(missing.status, 400);
    assert.equal((missing.body.error as { param?: string }).param, 'admin_key');
  });

  test('signing in sets an HttpOnly, SameSite=Strict cookie on /console holding an opaque id, never the admin key', async () => {
    const { cookie, csrf, setCookie } = await signIn(gateway);
    const flags = setCookie.split(';').map((part) => part.trim());
    assert.ok(flags.includes('HttpOnly'), setCookie);
    assert.ok(flags.includes('SameSite=Strict'), setCookie);
    assert.ok(flags.includes('Path=/console'), setCookie);
    assert.ok(flags.includes('Max-Age=3600'), setCookie);
    assert.ok(!setCookie.includes(ADMIN_KEY), 'the admin key is not in the cookie');
    assert.match(cookie, /^switchyard_console=[\w-]{40,}$/);
    assert.ok(csrf.length >= 40);

    const session = await call(gateway, 'GET', '/console/api/session', { cookie });
    assert.equal(session.status, 200);
    assert.equal(session.body.csrf_token, csrf);
    assert.ok(!JSON.stringify(session.body).includes(ADMIN_KEY));
    const keys = await call(gateway, 'GET', '/console/api/admin/keys', { cookie });
    assert.equal(keys.status, 200);
    assert.equal(keys.headers.get('cache-control'), 'no-store');
  });

  test('without a session the console API answers 401 console_session_required', async () => {
    for (const cookie of [undefined, 'switchyard_console=made-up-session-id']) {
      const answer = await call(gateway, 'GET', '/console/api/admin/accounts', { cookie });
      assert.equal(answer.status, 401);
      assert.equal(errorCode(answer), 'console_session_required');
    }
  });

  test('a write without the session token, or from another site, is refused; with both it goes through', async () => {
    const { cookie, csrf } = await signIn(gateway);
    const body = { id: 'csrf-test', balance: 1 };
    const noToken = await call(gateway, 'POST', '/console/api/admin/accounts', { cookie, body });
    assert.equal(noToken.status, 403);
    assert.equal(errorCode(noToken), 'access_denied');
    const wrongToken = await call(gateway, 'POST', '/console/api/admin/accounts', {
      cookie,
      body,
      headers: { 'x-switchyard-csrf': `${csrf.slice(0, -1)}x` },
    });
    assert.equal(wrongToken.status, 403);
    const otherOrigin = await call(gateway, 'POST', '/console/api/admin/accounts', {
      cookie,
      body,
      headers: { 'x-switchyard-csrf': csrf, origin: 'https://evil.example' },
    });
    assert.equal(otherOrigin.status, 403);
    const crossSite = await call(gateway, 'POST', '/console/api/admin/accounts', {
      cookie,
      body,
      headers: { 'x-switchyard-csrf': csrf, 'sec-fetch-site': 'cross-site' },
    });
    assert.equal(crossSite.status, 403);
    const crossSiteSignIn = await call(gateway, 'POST', '/console/api/session', {
      body: { admin_key: ADMIN_KEY },
      headers: { origin: 'https://evil.example' },
    });
    assert.equal(crossSiteSignIn.status, 403, 'no sign-in from another site');
    assert.equal((await admin(gateway.origin, 'GET', '/accounts/csrf-test', ADMIN_KEY)).status, 404, 'nothing written');

    const allowed = await call(gateway, 'POST', '/console/api/admin/accounts', {
      cookie,
      body,
      headers: { 'x-switchyard-csrf': csrf, origin: gateway.origin, 'sec-fetch-site': 'same-origin' },
    });
    assert.equal(allowed.status, 201, JSON.stringify(allowed.body));
  });

  test('signing out ends the session and clears the cookie', async () => {
    const { cookie } = await signIn(gateway);
    const out = await call(gateway, 'DELETE', '/console/api/session', { cookie });
    assert.equal(out.status, 200);
    assert.match(out.headers.get('set-cookie') ?? '', /^switchyard_console=; .*Max-Age=0/);
    assert.equal((await call(gateway, 'GET', '/console/api/admin/keys', { cookie })).status, 401);
  });

  test('GET /admin/v1/stats buckets the usage ledger by time, model and node; bad parameters are 400s naming them', async () => {
    for (let index = 0; index < 2; index++) {
      const response = await postChat(gateway.baseUrl, API_KEY, chatBody('chat', { max_tokens: 8 }));
      assert.equal(response.status, 200);
      await response.text();
    }
    let stats: Record<string, unknown> = {};
    await waitFor(
      async () => {
        const answer = await admin(gateway.origin, 'GET', '/stats?range=hour', ADMIN_KEY);
        stats = answer.body as Record<string, unknown>;
        const data = stats.data as Array<{ requests: number }>;
        return data.reduce((sum, bucket) => sum + bucket.requests, 0) >= 2;
      },
      5_000,
      { what: 'the requests in the stats' },
    );
    assert.equal(stats.range, 'hour');
    assert.equal(stats.bucket_seconds, 60);
    assert.equal(Date.parse(stats.to as string) - Date.parse(stats.from as string), 3_600_000);
    const bucket = (stats.data as Array<Record<string, number | string | null>>).at(-1) as Record<string, unknown>;
    for (const field of [
      'requests',
      'errors',
      'error_rate',
      'latency_p50_ms',
      'latency_p95_ms',
      'total_tokens',
      'cost',
    ])
      assert.equal(typeof bucket[field], 'number', field);
    assert.ok((bucket.cost as number) > 0, 'priced requests cost something');

    const byModel = (await admin(gateway.origin, 'GET', '/stats?range=day&group_by=model', ADMIN_KEY)).body as {
      data: Array<{ group: string }>;
      bucket_seconds: number;
    };
    assert.equal(byModel.bucket_seconds, 1800);
    assert.deepEqual([...new Set(byModel.data.map((entry) => entry.group))], ['chat']);
    const byNode = (await admin(gateway.origin, 'GET', '/stats?range=week&group_by=node', ADMIN_KEY)).body as {
      data: Array<{ group: string }>;
    };
    assert.deepEqual([...new Set(byNode.data.map((entry) => entry.group))], ['sim-a']);

    const badRange = await admin(gateway.origin, 'GET', '/stats?range=month', ADMIN_KEY);
    assert.equal(badRange.status, 400);
    assert.equal((badRange.body as { error: { param: string } }).error.param, 'range');
    const badGroup = await admin(gateway.origin, 'GET', '/stats?group_by=key', ADMIN_KEY);
    assert.equal((badGroup.body as { error: { param: string } }).error.param, 'group_by');
    assert.equal((await admin(gateway.origin, 'GET', '/stats', undefined)).status, 401, 'the admin key guards it');
  });

  test('GET /admin/v1/models lists prices, reasoning settings and routes', async () => {
    const answer = await admin(gateway.origin, 'GET', '/models', ADMIN_KEY);
    assert.equal(answer.status, 200);
    const [model] = (answer.body as { data: Array<Record<string, unknown>> }).data;
    assert.equal(model?.id, 'chat');
    assert.deepEqual((model?.pricing as Record<string, unknown>).input, 1);
    assert.equal(model?.reasoning, null);
    assert.deepEqual(model?.routes, [{ node: 'sim-a', upstream_model: 'simulated-chat', weight: 1, priority: 0 }]);
  });
});

describe('console sessions expire', () => {
  test('a session older than console.session_ttl_seconds is refused', async () => {
    await ensureConsoleBundle();
    const gateway = await startTestGateway(YAML.replace('session_ttl_seconds: 3600', 'session_ttl_seconds: 1'));
    try {
      const { cookie, setCookie } = await signIn(gateway);
      assert.match(setCookie, /Max-Age=1(;|$)/);
      assert.equal((await call(gateway, 'GET', '/console/api/admin/keys', { cookie })).status, 200);
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      const expired = await call(gateway, 'GET', '/console/api/admin/keys', { cookie });
      assert.equal(expired.status, 401);
      assert.equal(errorCode(expired), 'console_session_required');
    } finally {
      await gateway.close();
    }
  });
});

describe('console sessions end when the admin key changes', () => {
  test('after a reload with another admin key the old session can neither read, top up nor create a key', async () => {
    await ensureConsoleBundle();
    const gateway = await startTestGateway(YAML);
    try {
      const { cookie, csrf } = await signIn(gateway);
      const write = { cookie, headers: { 'x-switchyard-csrf': csrf } };
      const before = await call(gateway, 'POST', '/console/api/admin/accounts/acme/topup', {
        ...write,
        body: { amount: 1, reason: 'before rotation' },
      });
      assert.equal(before.status, 200, JSON.stringify(before.body));
      const rotated = 'console-admin-key-rotated-0123456789';
      await gateway.running.reload(gateway.parse(YAML.replace(`admin_key: ${ADMIN_KEY}`, `admin_key: ${rotated}`)));
      const read = await call(gateway, 'GET', '/console/api/admin/keys', { cookie });
      assert.equal(read.status, 401);
      assert.equal(errorCode(read), 'console_session_required');
      const topUp = await call(gateway, 'POST', '/console/api/admin/accounts/acme/topup', {
        ...write,
        body: { amount: 5, reason: 'after rotation' },
      });
      assert.equal(topUp.status, 401);
      const created = await call(gateway, 'POST', '/console/api/admin/keys', { ...write, body: { account: 'acme' } });
      assert.equal(created.status, 401);
      const account = await call(gateway, 'GET', '/admin/v1/accounts/acme', {
        headers: { authorization: `Bearer ${rotated}` },
      });
      assert.equal(account.body.balance, 11, 'only the top-up before the rotation went through');
      // Back to the first admin key: the old session stays ended (it is forgotten, not parked).
      await gateway.running.reload(gateway.parse(YAML));
      assert.equal((await call(gateway, 'GET', '/console/api/admin/keys', { cookie })).status, 401);
      // A sign-in with the key in force works.
      const fresh = await signIn(gateway);
      assert.equal((await call(gateway, 'GET', '/console/api/admin/keys', { cookie: fresh.cookie })).status, 200);
    } finally {
      await gateway.close();
    }
  });
});

describe('console behind a TLS proxy', () => {
  test('the cookie is Secure when a trusted proxy says the client came over https, and only then', async () => {
    await ensureConsoleBundle();
    const gateway = await startTestGateway(`trusted_proxies: [127.0.0.1]\n${YAML}`);
    try {
      const signIn = (headers: Record<string, string>) =>
        call(gateway, 'POST', '/console/api/session', { body: { admin_key: ADMIN_KEY }, headers });
      const overTls = await signIn({ 'x-forwarded-proto': 'https' });
      assert.match(overTls.headers.get('set-cookie') ?? '', /; Secure$/);
      const plain = await signIn({});
      assert.doesNotMatch(plain.headers.get('set-cookie') ?? '', /Secure/);
    } finally {
      await gateway.close();
    }
    const untrusted = await startTestGateway(YAML);
    try {
      const answer = await call(untrusted, 'POST', '/console/api/session', {
        body: { admin_key: ADMIN_KEY },
        headers: { 'x-forwarded-proto': 'https' },
      });
      assert.doesNotMatch(
        answer.headers.get('set-cookie') ?? '',
        /Secure/,
        'a header from an untrusted peer is ignored',
      );
    } finally {
      await untrusted.close();
    }
  });
});

describe('console without the admin API', () => {
  test('every /console path is 404 when no admin_key is configured', async () => {
    const gateway = await startTestGateway(YAML.replace(`admin_key: ${ADMIN_KEY}\n`, ''));
    try {
      for (const [method, path] of [
        ['GET', '/console'],
        ['GET', '/console/'],
        ['GET', '/console/assets/main.js'],
        ['POST', '/console/api/session'],
        ['GET', '/console/api/admin/keys'],
      ] as const) {
        const answer = await call(gateway, method, path, method === 'POST' ? { body: { admin_key: ADMIN_KEY } } : {});
        assert.equal(answer.status, 404, `${method} ${path}`);
      }
    } finally {
      await gateway.close();
    }
  });
});

describe('the request record through the console', () => {
  const TRACE_URL = 'https://tracing.example/trace/{trace_id}';
  let gateway: TestGateway;
  before(async () => {
    gateway = await startTestGateway(
      YAML.replace(
        'console: { session_ttl_seconds: 3600 }',
        `console: { session_ttl_seconds: 3600, trace_url: "${TRACE_URL}" }`,
      ),
    );
  });
  after(() => gateway?.close());

  test('console.trace_url must be an http(s) URL holding {trace_id}', () => {
    for (const url of ['https://tracing.example/trace/', 'javascript:alert({trace_id})', 'ftp://x/{trace_id}'])
      assert.throws(() => gateway.parse(YAML.replace('session_ttl_seconds: 3600', `trace_url: "${url}"`)), /trace_url/);
    const without = gateway.parse(YAML);
    assert.equal(without.console.traceUrl, undefined);
  });

  test('the session tells the page the trace link template (null without one)', async () => {
    const { cookie } = await signIn(gateway);
    const session = await call(gateway, 'GET', '/console/api/session', { cookie });
    assert.equal(session.body.trace_url, TRACE_URL);
    const plain = await startTestGateway(YAML);
    try {
      const other = await signIn(plain);
      assert.equal((await call(plain, 'GET', '/console/api/session', { cookie: other.cookie })).body.trace_url, null);
    } finally {
      await plain.close();
    }
  });

  test('the calls of the overview, the Requests page and a request page answer under a session, not without', async () => {
    const ok = await postChat(gateway.baseUrl, API_KEY, chatBody('chat', { max_tokens: 4 }));
    assert.equal(ok.status, 200);
    const id = ok.headers.get('x-request-id') ?? '';
    await ok.text();
    const refused = await postChat(gateway.baseUrl, API_KEY, chatBody('no-such-model'));
    assert.equal(refused.status, 404);
    await refused.text();
    const { cookie } = await signIn(gateway);
    const from = new Date(Date.now() - 3_600_000).toISOString();

    let list: Answer | undefined;
    await waitFor(
      async () => {
        list = await call(gateway, 'GET', `/console/api/admin/requests?from=${encodeURIComponent(from)}&limit=50`, {
          cookie,
        });
        return list.status === 200 && (list.body.data as unknown[]).length >= 2;
      },
      10_000,
      { what: () => `two records, got ${JSON.stringify(list?.body)}` },
    );
    const records = list?.body.data as Array<{ id: string; status: number; error_code: string | null }>;
    assert.deepEqual(
      records.map((record) => [record.status, record.error_code]),
      [
        [404, 'model_unavailable'],
        [200, null],
      ],
      'newest first',
    );
    const only4xx = await call(gateway, 'GET', `/console/api/admin/requests?status=4xx`, { cookie });
    assert.deepEqual(
      (only4xx.body.data as Array<{ status: number }>).map((record) => record.status),
      [404],
    );

    const one = await call(gateway, 'GET', `/console/api/admin/requests/${encodeURIComponent(id)}`, { cookie });
    assert.equal(one.status, 200);
    assert.equal(one.body.id, id);
    assert.equal(one.body.door, 'chat');
    assert.deepEqual(
      (one.body.attempts as Array<{ node: string; status: number }>).map((attempt) => [attempt.node, attempt.status]),
      [['sim-a', 200]],
    );
    const unknown = await call(gateway, 'GET', '/console/api/admin/requests/req_not_there', { cookie });
    assert.equal(unknown.status, 404);

    const stats = await call(
      gateway,
      'GET',
      `/console/api/admin/requests/stats?from=${encodeURIComponent(from)}&bucket=60`,
      { cookie },
    );
    assert.equal(stats.status, 200);
    const totals = stats.body.totals as { requests: number; errors: number; error_rate: number };
    assert.deepEqual([totals.requests, totals.errors, totals.error_rate], [2, 1, 0.5]);
    const unauthenticated = await call(gateway, 'GET', '/console/api/admin/requests/unauthenticated', { cookie });
    assert.equal(unauthenticated.status, 200);
    assert.ok(Array.isArray(unauthenticated.body.data));

    for (const path of ['/requests', `/requests/${id}`, '/requests/stats', '/requests/unauthenticated'])
      assert.equal((await call(gateway, 'GET', `/console/api/admin${path}`)).status, 401, path);
  });
});
