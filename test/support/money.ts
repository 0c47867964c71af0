import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { postChat } from './post-chat.js';
import type { StoreBackend } from './store-backends.js';

/** Shared pieces of the money suites (issue 4): one gateway shape, exact cost arithmetic, an admin client. */

export const ADMIN_KEY = 'test-admin-key-0123456789';

export interface Pricing {
  readonly input: number;
  readonly output: number;
  readonly cached_input?: number;
  readonly reasoning?: number;
}

/** USD per million tokens, chosen so per-token prices have fractions of a nano-USD (rounding is exercised). */
export const PRICES: Readonly<Record<string, Pricing>> = {
  paid: { input: 0.1234567, output: 1.9876543 },
  thinker: { input: 0.5, output: 1.5, reasoning: 3.25 },
  /** No input price: a request capped at max_tokens costs exactly its reservation. */
  flat: { input: 0, output: 2 },
  'paid-slow': { input: 0.1234567, output: 1.9876543 },
};

function pricingYaml(pricing: Pricing): string {
  return `{ ${Object.entries(pricing)
    .map(([name, value]) => `${name}: ${value}`)
    .join(', ')} }`;
}

/** A gateway on `backend` with simulated nodes, paid, free, reasoning and slow models, and an admin key. */
export function gatewayYaml(
  backend: Pick<StoreBackend, 'store' | 'journalDir'>,
  options: { listenPort?: number; flushIntervalMs?: number; extra?: string } = {},
): string {
  return `listen: { host: 127.0.0.1, port: ${options.listenPort ?? 0} }
store: "${backend.store}"
admin_key: ${ADMIN_KEY}
log_level: warn
usage: { journal_dir: "${backend.journalDir}", flush_interval_ms: ${options.flushIntervalMs ?? 25} }
nodes:
  - { id: sim, provider: simulated, max_concurrency: 512 }
  - { id: slow, provider: simulated, simulated: { tokens_per_second: 40 } }
models:
  - { id: paid, context_length: 8192, pricing: ${pricingYaml(PRICES.paid as Pricing)}, routes: [{ node: sim }] }
  - { id: free, routes: [{ node: sim }] }
  - { id: thinker, reasoning: { default_effort: medium }, pricing: ${pricingYaml(PRICES.thinker as Pricing)}, routes: [{ node: sim }] }
  - { id: flat, pricing: ${pricingYaml(PRICES.flat as Pricing)}, routes: [{ node: sim }] }
  - { id: paid-slow, pricing: ${pricingYaml(PRICES['paid-slow'] as Pricing)}, routes: [{ node: slow }] }
${options.extra ?? ''}`;
}

export const NANO = 1_000_000_000;

export function usdToNano(usd: number): number {
  return Math.round(usd * NANO);
}

/** What the node reported, as the openai client gives it. */
export interface ReportedUsage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly prompt_tokens_details?: { cached_tokens?: number } | null;
  readonly completion_tokens_details?: { reasoning_tokens?: number } | null;
}

/**
 * The cost of a reply in nano-USD from first principles (PRODUCT.md decision 12): prices are
 * USD per million tokens; uncached prompt × input, cached × cached input (default input),
 * reasoning × reasoning (default output), the rest of the completion × output; one rounding.
 */
export function expectedCostNano(model: string, usage: ReportedUsage): number {
  const pricing = PRICES[model];
  if (pricing === undefined) return 0;
  const input = usdToNano(pricing.input);
  const output = usdToNano(pricing.output);
  const cachedInput = pricing.cached_input === undefined ? input : usdToNano(pricing.cached_input);
  const reasoning = pricing.reasoning === undefined ? output : usdToNano(pricing.reasoning);
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
  const reasoningTokens = usage.completion_tokens_details?.reasoning_tokens ?? 0;
  const scaled =
    (usage.prompt_tokens - cached) * input +
    cached * cachedInput +
    (usage.completion_tokens - reasoningTokens) * output +
    reasoningTokens * reasoning;
  return Math.round(scaled / 1_000_000);
}

export interface AdminAnswer {
  readonly status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly body: any;
}

/** The admin API over plain HTTP. */
export class AdminClient {
  readonly origin: string;

  constructor(
    baseUrl: string,
    /** null: send no Authorization header. */
    private readonly adminKey: string | null = ADMIN_KEY,
  ) {
    this.origin = baseUrl.replace(/\/v1$/, '');
  }

  async call(method: string, path: string, body?: unknown): Promise<AdminAnswer> {
    const headers: Record<string, string> = {};
    if (this.adminKey !== null) headers.authorization = `Bearer ${this.adminKey}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${this.origin}/admin/v1${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
  }

  /** Like call, but asserts a 2xx answer and returns its body. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async ok(method: string, path: string, body?: unknown): Promise<any> {
    const answer = await this.call(method, path, body);
    assert.ok(
      answer.status >= 200 && answer.status < 300,
      `${method} ${path} → ${answer.status} ${JSON.stringify(answer.body)}`,
    );
    return answer.body;
  }

  /** Committed balance of an account in nano-USD (what the admin API shows, made exact again). */
  async balanceNano(accountId: string): Promise<number> {
    return usdToNano((await this.ok('GET', `/accounts/${accountId}`)).balance as number);
  }

  async spentNano(keyId: string): Promise<number> {
    return usdToNano((await this.ok('GET', `/keys/${keyId}`)).spent as number);
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async usage(query: Record<string, string> = {}): Promise<any> {
    return this.ok('GET', `/usage?${new URLSearchParams(query)}`);
  }
}

let sequence = 0;
/** A fresh id for accounts in stores shared by several tests. */
export function uniqueId(label: string): string {
  return `${label}-${process.pid}-${Date.now().toString(36)}-${sequence++}`;
}

export interface AccountWithKey {
  readonly accountId: string;
  readonly keyId: string;
  readonly secret: string;
}

/** Creates an account and one key for it through the admin API. */
export async function accountWithKey(
  admin: AdminClient,
  account: Record<string, unknown>,
  key: Record<string, unknown> = {},
): Promise<AccountWithKey> {
  const accountId = uniqueId(String(account.id ?? 'acct'));
  await admin.ok('POST', '/accounts', { ...account, id: accountId });
  const created = await admin.ok('POST', '/keys', { account: accountId, ...key });
  assert.match(created.key, /^sk-/);
  return { accountId, keyId: created.id as string, secret: created.key as string };
}

export function openaiClient(baseURL: string, apiKey: string): OpenAI {
  return new OpenAI({ baseURL, apiKey, maxRetries: 0, timeout: 20_000 });
}

/** What the money tests read of a chat answer: a completion's usage and choices, or an error. */
// The tests read every shape an answer can take (completions, errors, node bodies) as parsed JSON.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ChatAnswerBody = any;

/** Sends a chat completion and returns the status and parsed body, without a client library. */
export async function chat(
  baseUrl: string,
  apiKey: string | undefined,
  body: Record<string, unknown>,
): Promise<{ status: number; body: ChatAnswerBody }> {
  const response = await postChat(
    baseUrl,
    apiKey,
    { messages: [{ role: 'user', content: 'Say hello to the ledger' }], ...body },
    { timeoutMs: 20_000 },
  );
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) };
}

/** Asserts that a promise rejects with an openai APIError of this status, code and type. */
export async function rejectsWith(
  promise: Promise<unknown>,
  status: number,
  code: string,
  type: string,
  param?: string | null,
): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof OpenAI.APIError, `an APIError, got ${String(error)}`);
    assert.equal(error.status, status, `status of ${error.message}`);
    assert.equal(error.code, code, `code of ${error.message}`);
    assert.equal(error.type, type, `type of ${error.message}`);
    if (param !== undefined) assert.equal(error.param, param, `param of ${error.message}`);
    return error;
  }
  assert.fail(`expected ${status} ${code}, but the request succeeded`);
}
