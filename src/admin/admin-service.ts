import { randomBytes } from 'node:crypto';
import type { ValidateFunction } from 'ajv';
import { hashKey, keyPrefixOf } from '../auth/key-registry.js';
import type { AccountCache } from '../billing/account-cache.js';
import { MAX_BALANCE_NANO, MAX_BALANCE_USD, nanoToUsd, usdToNano } from '../billing/money.js';
import { gatewayError, invalidValue, validationFailed } from '../errors/gateway-error.js';
import { because, type ReasonArgs, type ReasonId } from '../errors/reasons.js';
import { schemaValidationFailed } from '../protocol/openai/validate-chat-request.js';
import type {
  AccountRecord,
  BalanceEntry,
  BudgetRule,
  FeaturePolicy,
  KeyRecord,
  StoreChange,
  UsageFilter,
  UsageRow,
  UsageTotals,
} from '../store/records.js';
import type { Store } from '../store/store.js';
import type { UsageLedger } from '../billing/usage-ledger.js';
import {
  validateAdjust,
  validateCreateAccount,
  validateCreateKey,
  validateRotateKey,
  validateTopUp,
  validateUpdateAccount,
  validateUpdateKey,
} from '../validation/generated/validate-admin-bodies.js';
import { RequestLogQueries, type PendingRecords } from './request-log-queries.js';
import { DEFAULT_ROTATION_GRACE_SECONDS, type BudgetsBody, type PolicyBody } from './admin-schemas.js';
import {
  budgetRulesView,
  budgetsOfOwner,
  budgetViews,
  endUserBudgetViews,
  type BudgetViewSource,
  type BudgetWindowView,
} from './budget-view.js';
import { parseIsoTime } from '../config/iso-time.js';

const MAX_USAGE_ROWS = 1000;
const DEFAULT_USAGE_ROWS = 100;
const MAX_END_USERS = 1000;
const DEFAULT_END_USERS = 100;

/** A new API key: 192 random bits. */
function newSecret(): string {
  return `sk-sy-${randomBytes(24).toString('base64url')}`;
}

function check<T>(validate: ValidateFunction<T>, body: unknown): T {
  if (!validate(body)) throw schemaValidationFailed(validate.errors);
  return body;
}

function notFound(kind: string, id: string) {
  return gatewayError('not_found', { params: { kind, id } });
}

function conflict<R extends ReasonId>(id: R, ...args: ReasonArgs<R>) {
  return gatewayError('conflict', { reason: because(id, ...args) });
}

function policyOf(policy: PolicyBody | null | undefined): FeaturePolicy | null | undefined {
  if (policy === undefined || policy === null) return policy;
  return {
    ...(policy.streaming === undefined ? {} : { streaming: policy.streaming }),
    ...(policy.max_reasoning_effort === undefined ? {} : { maxReasoningEffort: policy.max_reasoning_effort }),
  };
}

/** Budgets of an admin body in nano-USD; one per period (a second one of a period is refused). */
function budgetsOf(budgets: BudgetsBody | undefined): BudgetRule[] | null | undefined {
  if (budgets === undefined || budgets === null) return budgets;
  const seen = new Set<string>();
  budgets.forEach((budget, index) => {
    if (seen.has(budget.period)) throw invalidValue(`budgets[${index}].period`, 'repeats_budget_period');
    seen.add(budget.period);
  });
  return budgets.length === 0
    ? null
    : budgets.map((budget) => ({ period: budget.period, limitNano: usdToNano(budget.limit) }));
}

function policyView(policy: FeaturePolicy | null) {
  return policy === null
    ? null
    : { streaming: policy.streaming ?? true, max_reasoning_effort: policy.maxReasoningEffort ?? null };
}

/**
 * `pendingNano`: what the gateway settled for the key but has not written yet (as for an
 * account's balance); `reservedNano`: its requests in flight; `windows`: its budgets' current windows.
 */
function keyView(key: KeyRecord, pendingNano = 0, reservedNano = 0, windows: readonly BudgetWindowView[] = []) {
  const spentNano = key.spentNano + pendingNano;
  return {
    id: key.id,
    object: 'key',
    prefix: key.prefix,
    account: key.accountId,
    name: key.name,
    status: key.status,
    status_reason: key.statusReason,
    source: key.source,
    spend_limit: key.spendLimitNano === null ? null : nanoToUsd(key.spendLimitNano),
    spent: nanoToUsd(spentNano),
    reserved: nanoToUsd(reservedNano),
    /** What is left of the spend limit after spend and requests in flight; null without a limit. */
    remaining:
      key.spendLimitNano === null ? null : nanoToUsd(Math.max(0, key.spendLimitNano - spentNano - reservedNano)),
    budgets: windows,
    end_user_budgets: budgetRulesView(key.endUserBudgets),
    limits: key.limits,
    allowed_models: key.allowedModels,
    policy: policyView(key.policy),
    request_log: key.requestLog,
    created_at: key.createdAt,
    last_used_at: key.lastUsedAt,
    expires_at: key.expiresAt,
    previous_prefix: key.previous?.prefix ?? null,
    previous_expires_at: key.previous?.expiresAt ?? null,
  };
}

/** An `expires_at` of a body: undefined (unchanged), null (never) or the time as ISO UTC. */
function expiresAtOf(value: string | null | undefined): string | null | undefined {
  if (value === undefined || value === null) return value;
  const time = parseIsoTime(value);
  if (time === undefined) throw invalidValue('expires_at', 'must_be_iso_time');
  return new Date(time).toISOString();
}

function entryView(entry: BalanceEntry) {
  return {
    id: entry.id,
    kind: entry.kind,
    amount: nanoToUsd(entry.amountNano),
    balance_after: nanoToUsd(entry.balanceAfterNano),
    reason: entry.reason,
    created_at: entry.createdAt,
  };
}

function usageView(row: UsageRow) {
  return {
    request_id: row.requestId,
    correlation_id: row.correlationId,
    key: row.keyId,
    account: row.accountId,
    model: row.model,
    model_requested: row.modelRequested ?? null,
    node: row.node,
    attempts: row.attempts,
    prompt_tokens: row.promptTokens,
    completion_tokens: row.completionTokens,
    reasoning_tokens: row.reasoningTokens,
    cached_tokens: row.cachedTokens,
    cache_write_tokens: row.cacheWriteTokens,
    cache_write_1h_tokens: row.cacheWrite1hTokens,
    cost: nanoToUsd(row.costNano),
    cost_nano: row.costNano,
    estimated: row.estimated,
    status: row.status,
    error_code: row.errorCode,
    latency_ms: row.latencyMs,
    first_byte_ms: row.firstByteMs,
    stream: row.stream,
    finish_reason: row.finishReason,
    front_door: row.frontDoor,
    end_user: row.endUser,
    features: row.features ?? null,
    affinity: row.affinity ?? null,
    created_at: row.createdAt,
  };
}

function totalsView(totals: UsageTotals) {
  return {
    requests: totals.requests,
    prompt_tokens: totals.promptTokens,
    completion_tokens: totals.completionTokens,
    reasoning_tokens: totals.reasoningTokens,
    cached_tokens: totals.cachedTokens,
    cache_write_tokens: totals.cacheWriteTokens,
    cost: nanoToUsd(totals.costNano),
    cost_nano: totals.costNano,
  };
}

/** Query-string filters of GET /admin/v1/usage. */
export interface UsageQuery {
  readonly key?: string;
  readonly end_user?: string;
  /** `end_user`: also the totals per end user. */
  readonly group_by?: string;
  readonly account?: string;
  readonly model?: string;
  readonly node?: string;
  readonly status?: string;
  readonly request_id?: string;
  readonly from?: string;
  readonly to?: string;
  readonly limit?: string;
}

/** Query-string parameters of GET /admin/v1/stats. */
export interface StatsQuery {
  readonly range?: string;
  readonly group_by?: string;
}

/** The stats ranges: how wide a bucket is and how many buckets end at the current one. */
export const STATS_RANGES = {
  hour: { bucketSeconds: 60, buckets: 60 },
  day: { bucketSeconds: 1800, buckets: 48 },
  week: { bucketSeconds: 3 * 3600, buckets: 56 },
} as const;

export type StatsRange = keyof typeof STATS_RANGES;

const STATS_RANGE_NAMES = Object.keys(STATS_RANGES).filter((name): name is StatsRange =>
  Object.hasOwn(STATS_RANGES, name),
);

function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined || value === '') return undefined;
  const known = allowed.find((candidate) => candidate === value);
  if (known !== undefined) return known;
  throw invalidValue(name, 'one_of', { values: allowed.join(', ') });
}

function statusParam(value: string | undefined): UsageFilter['status'] {
  if (value === undefined || value === '') return undefined;
  if (value === 'ok' || value === 'error') return value;
  const status = Number(value);
  if (/^\d{3}$/.test(value) && status >= 100 && status <= 599) return status;
  throw invalidValue('status', 'must_be_status');
}

function timeParam(name: string, value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  const time = new Date(value);
  if (Number.isNaN(time.getTime())) {
    throw invalidValue(name, 'must_be_iso_time');
  }
  return time.toISOString();
}

/**
 * Keys, accounts, balances and usage for operators: what the admin API and the CLI do,
 * in one place. Works on the store; when a gateway's cache is given (the admin API), the
 * cache takes each change before the call returns, so the next request sees it.
 */
export class AdminService {
  /** The request record (PRODUCT decision 28). */
  readonly requests: RequestLogQueries;
  private readonly budgetSource: BudgetViewSource;

  constructor(
    private readonly store: Store,
    private readonly cache?: AccountCache,
    private readonly usage?: UsageLedger,
    /** The gateway's request record writer: flushed before each read, so a read sees the requests just made. */
    pendingRecords?: PendingRecords,
    /** The gateway's budget time zone (default UTC) and clock (default the wall clock). */
    budgets: { readonly timeZone?: string; readonly clock?: () => number } = {},
  ) {
    this.requests = new RequestLogQueries(store.requestLog, pendingRecords);
    this.budgetSource = {
      store,
      cache,
      timeZone: budgets.timeZone ?? cache?.windows.timeZone ?? 'UTC',
      clock: budgets.clock ?? Date.now,
    };
  }

  /** The current windows of the keys' and accounts' budgets. */
  private windowsOf(keys: readonly KeyRecord[], accounts: readonly AccountRecord[]) {
    return budgetViews(this.budgetSource, [
      ...keys.map((key) => ({ kind: 'key' as const, id: key.id, budgets: key.budgets })),
      ...accounts.map((account) => ({ kind: 'account' as const, id: account.id, budgets: account.budgets })),
    ]);
  }

  private async changed(change: StoreChange): Promise<void> {
    await this.cache?.reload(change);
  }

  /** The balance an operator should see: committed, minus what this gateway settled but has not written yet. */
  private accountView(account: AccountRecord, windows: ReadonlyMap<string, BudgetWindowView[]>) {
    const cached = this.cache?.account(account.id);
    const pendingNano = cached?.pendingNano ?? 0;
    const reservedNano = cached?.reservedNano ?? 0;
    return {
      id: account.id,
      object: 'account',
      name: account.name,
      balance: nanoToUsd(account.balanceNano - pendingNano),
      reserved: nanoToUsd(reservedNano),
      /** What requests may still spend: the balance less requests in flight. */
      remaining: nanoToUsd(Math.max(0, account.balanceNano - pendingNano - reservedNano)),
      budgets: budgetsOfOwner(windows, 'account', account.id),
      allowed_models: account.allowedModels,
      limits: account.limits,
      policy: policyView(account.policy),
      request_log: account.requestLog,
      created_at: account.createdAt,
    };
  }

  /** The spend an operator should see: committed plus what this gateway settled but has not written yet. */
  private keyView(key: KeyRecord, windows: ReadonlyMap<string, BudgetWindowView[]>) {
    const cached = this.cache?.key(key.id);
    return keyView(key, cached?.pendingNano ?? 0, cached?.reservedNano ?? 0, budgetsOfOwner(windows, 'key', key.id));
  }

  private async oneKeyView(key: KeyRecord) {
    return this.keyView(key, await this.windowsOf([key], []));
  }

  private async oneAccountView(account: AccountRecord) {
    return this.accountView(account, await this.windowsOf([], [account]));
  }

  private async account(id: string): Promise<AccountRecord> {
    const account = await this.store.getAccount(id);
    if (account === undefined) throw notFound('account', id);
    return account;
  }

  /** A key by id (`key_…`) or by a prefix that matches exactly one key. */
  private async key(idOrPrefix: string): Promise<KeyRecord> {
    const byId = await this.store.getKey(idOrPrefix);
    if (byId !== undefined && byId.status !== 'deleted') return byId;
    const matches = idOrPrefix.length >= 4 ? await this.store.listKeys({ prefix: idOrPrefix }) : [];
    const [only] = matches;
    if (matches.length === 1 && only !== undefined) return only;
    if (matches.length > 1) {
      throw conflict('key_prefix_ambiguous', { prefix: idOrPrefix, count: matches.length });
    }
    throw notFound('key', idOrPrefix);
  }

  async createAccount(body: unknown) {
    const input = check(validateCreateAccount, body);
    const created = await this.store.insertAccountIfAbsent(
      {
        id: input.id,
        name: input.name ?? null,
        balanceNano: usdToNano(input.balance ?? 0),
        allowedModels: input.allowed_models ?? null,
        limits: input.limits ?? null,
        policy: policyOf(input.policy) ?? null,
        requestLog: input.request_log ?? null,
        budgets: budgetsOf(input.budgets) ?? null,
      },
      'starting balance',
    );
    if (!created) throw conflict('account_exists', { id: input.id });
    await this.changed({ kind: 'account', id: input.id });
    return this.oneAccountView(await this.account(input.id));
  }

  async listAccounts() {
    const { accounts } = await this.store.loadAll();
    const windows = await this.windowsOf([], accounts);
    return {
      object: 'list',
      data: accounts.sort((a, b) => a.id.localeCompare(b.id)).map((account) => this.accountView(account, windows)),
    };
  }

  async showAccount(id: string) {
    const account = await this.account(id);
    const [keys, entries] = await Promise.all([
      this.store.listKeys({ accountId: id }),
      this.store.balanceEntries(id, 20),
    ]);
    const windows = await this.windowsOf(keys, [account]);
    return {
      ...this.accountView(account, windows),
      keys: keys.map((key) => this.keyView(key, windows)),
      ledger: entries.map(entryView),
    };
  }

  async updateAccount(id: string, body: unknown) {
    const input = check(validateUpdateAccount, body);
    const updated = await this.store.updateAccount(id, {
      name: input.name,
      allowedModels: input.allowed_models,
      limits: input.limits,
      policy: policyOf(input.policy),
      requestLog: input.request_log,
      budgets: budgetsOf(input.budgets),
    });
    if (updated === undefined) throw notFound('account', id);
    await this.changed({ kind: 'account', id });
    return this.oneAccountView(updated);
  }

  /** Adds money (top-up) or changes it either way (adjustment); each is a ledger entry with its reason. */
  async changeBalance(id: string, kind: 'topup' | 'adjustment', body: unknown) {
    const input = kind === 'topup' ? check(validateTopUp, body) : check(validateAdjust, body);
    const amountNano = usdToNano(input.amount);
    if (amountNano === 0) throw invalidValue('amount', 'must_not_be_zero');
    const entry = await this.store.adjustBalance(id, amountNano, kind, input.reason, MAX_BALANCE_NANO);
    if (entry === undefined) {
      await this.account(id); // 404 when there is no such account
      throw validationFailed('amount', 'balance_over_max', { max: MAX_BALANCE_USD });
    }
    await this.changed({ kind: 'account', id });
    return { ...(await this.oneAccountView(await this.account(id))), entry: entryView(entry) };
  }

  async ledger(id: string) {
    await this.account(id);
    return { object: 'list', data: (await this.store.balanceEntries(id, 1000)).map(entryView) };
  }

  /** Creates a key for an account; the secret is in this answer and nowhere else, ever. */
  async createKey(body: unknown) {
    const input = check(validateCreateKey, body);
    await this.account(input.account).catch(() => {
      throw validationFailed('account', 'unknown_account', { account: input.account });
    });
    const secret = newSecret();
    const hash = hashKey(secret).toString('hex');
    const id = `key_${randomBytes(8).toString('hex')}`;
    await this.store.insertKeyIfAbsent({
      id,
      hash,
      prefix: keyPrefixOf(secret),
      accountId: input.account,
      source: 'admin',
      name: input.name ?? null,
      spendLimitNano:
        input.spend_limit === undefined || input.spend_limit === null ? null : usdToNano(input.spend_limit),
      limits: input.limits ?? null,
      allowedModels: input.allowed_models ?? null,
      policy: policyOf(input.policy) ?? null,
      requestLog: input.request_log ?? null,
      budgets: budgetsOf(input.budgets) ?? null,
      endUserBudgets: budgetsOf(input.end_user_budgets) ?? null,
      expiresAt: expiresAtOf(input.expires_at) ?? null,
    });
    await this.changed({ kind: 'key', id });
    return { ...(await this.oneKeyView(await this.key(id))), key: secret };
  }

  /**
   * Gives a key a new secret, returned in this answer and nowhere else; the secret it had
   * keeps working for `grace_seconds` (default an hour) and is refused after. Both book to
   * the same key. A key from the configuration file rotates in its file.
   */
  async rotateKey(idOrPrefix: string, body: unknown, now = Date.now()) {
    const input = check(validateRotateKey, body);
    const key = await this.key(idOrPrefix);
    if (key.source === 'config') throw conflict('config_key_rotation');
    if (key.status === 'revoked') throw conflict('key_rotation_forbidden', { status: key.status });
    const secret = newSecret();
    const graceSeconds = input.grace_seconds ?? DEFAULT_ROTATION_GRACE_SECONDS;
    const rotated = await this.store.rotateKey(key.id, {
      hash: hashKey(secret).toString('hex'),
      prefix: keyPrefixOf(secret),
      previousExpiresAt: new Date(now + graceSeconds * 1000).toISOString(),
    });
    if (rotated === undefined) throw notFound('key', idOrPrefix);
    await this.changed({ kind: 'key', id: key.id });
    return { ...(await this.oneKeyView(rotated)), key: secret };
  }

  async listKeys(query: { prefix?: string; account?: string; include_deleted?: string }) {
    const keys = await this.store.listKeys({
      prefix: query.prefix || undefined,
      accountId: query.account || undefined,
      includeDeleted: query.include_deleted === 'true',
    });
    const windows = await this.windowsOf(keys, []);
    return { object: 'list', data: keys.map((key) => this.keyView(key, windows)) };
  }

  async showKey(idOrPrefix: string) {
    return this.oneKeyView(await this.key(idOrPrefix));
  }

  /** The key's end users with spend in a current window of its `end_user_budgets`, each with its windows. */
  async keyEndUsers(idOrPrefix: string, query: { limit?: string }) {
    const limit = query.limit === undefined || query.limit === '' ? DEFAULT_END_USERS : Number(query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_END_USERS) {
      throw invalidValue('limit', 'integer_in_range', { min: 1, max: MAX_END_USERS });
    }
    const key = await this.key(idOrPrefix);
    await this.usage?.flush();
    return { object: 'list', data: await endUserBudgetViews(this.budgetSource, key, limit) };
  }

  async updateKey(idOrPrefix: string, body: unknown) {
    const input = check(validateUpdateKey, body);
    const key = await this.key(idOrPrefix);
    const updated = await this.store.updateKey(key.id, {
      name: input.name,
      spendLimitNano:
        input.spend_limit === undefined ? undefined : input.spend_limit === null ? null : usdToNano(input.spend_limit),
      limits: input.limits,
      allowedModels: input.allowed_models,
      policy: policyOf(input.policy),
      requestLog: input.request_log,
      budgets: budgetsOf(input.budgets),
      endUserBudgets: budgetsOf(input.end_user_budgets),
      expiresAt: expiresAtOf(input.expires_at),
    });
    if (updated === undefined) throw notFound('key', idOrPrefix);
    await this.changed({ kind: 'key', id: key.id });
    return this.oneKeyView(updated);
  }

  /**
   * block: active → blocked; unblock: blocked → active; revoke: active or blocked → revoked
   * (final); delete: any → deleted (final, hidden from listings). Each refuses the key at once.
   */
  async setKeyState(idOrPrefix: string, action: 'block' | 'unblock' | 'revoke' | 'delete') {
    const key = await this.key(idOrPrefix);
    const allowed: Record<typeof action, readonly string[]> = {
      block: ['active', 'blocked'],
      unblock: ['blocked', 'active'],
      revoke: ['active', 'blocked', 'revoked'],
      delete: ['active', 'blocked', 'revoked'],
    };
    if (!allowed[action].includes(key.status)) {
      throw conflict('key_state_forbids', { status: key.status, action });
    }
    const status = ({ block: 'blocked', unblock: 'active', revoke: 'revoked', delete: 'deleted' } as const)[action];
    // An operator's move: no reason the file set stays, so the file will not lift this block.
    const updated = await this.store.updateKey(key.id, { status, statusReason: null });
    if (updated === undefined) throw notFound('key', idOrPrefix);
    await this.changed({ kind: 'key', id: key.id });
    return this.oneKeyView(updated);
  }

  /**
   * Time buckets over the usage ledger ending with the current one: requests, errors,
   * latency percentiles, tokens and cost, for the whole gateway or per model or node.
   */
  async usageStats(query: StatsQuery, now = Date.now()) {
    const range = oneOf('range', query.range, STATS_RANGE_NAMES) ?? 'hour';
    const groupBy = oneOf('group_by', query.group_by, ['model', 'node', 'end_user'] as const);
    const { bucketSeconds, buckets } = STATS_RANGES[range];
    const widthMs = bucketSeconds * 1000;
    const from = Math.floor(now / widthMs) * widthMs - (buckets - 1) * widthMs;
    const to = from + buckets * widthMs;
    await this.usage?.flush();
    const data = await this.store.usageStats({
      from: new Date(from).toISOString(),
      to: new Date(to).toISOString(),
      bucketSeconds,
      groupBy,
    });
    return {
      object: 'usage_stats',
      range,
      bucket_seconds: bucketSeconds,
      from: new Date(from).toISOString(),
      to: new Date(to).toISOString(),
      group_by: groupBy ?? null,
      data: data.map((bucket) => ({
        start: bucket.start,
        group: bucket.group,
        requests: bucket.requests,
        errors: bucket.errors,
        error_rate: bucket.requests === 0 ? 0 : Math.round((bucket.errors / bucket.requests) * 10_000) / 10_000,
        latency_p50_ms: Math.round(bucket.latencyP50Ms * 100) / 100,
        latency_p95_ms: Math.round(bucket.latencyP95Ms * 100) / 100,
        prompt_tokens: bucket.promptTokens,
        completion_tokens: bucket.completionTokens,
        reasoning_tokens: bucket.reasoningTokens,
        total_tokens: bucket.promptTokens + bucket.completionTokens,
        cost: nanoToUsd(bucket.costNano),
        cost_nano: bucket.costNano,
      })),
    };
  }

  /** Usage rows (newest first) and totals over every matching row; rows still waiting to be written are written first. */
  async usageReport(query: UsageQuery) {
    const limit = query.limit === undefined || query.limit === '' ? DEFAULT_USAGE_ROWS : Number(query.limit);
    if (!Number.isInteger(limit) || limit < 0 || limit > MAX_USAGE_ROWS) {
      throw invalidValue('limit', 'integer_in_range', { min: 0, max: MAX_USAGE_ROWS });
    }
    const keyId =
      query.key === undefined || query.key === ''
        ? undefined
        : query.key.startsWith('key_')
          ? query.key
          : (await this.key(query.key)).id;
    const groupBy = oneOf('group_by', query.group_by, ['end_user'] as const);
    await this.usage?.flush();
    const report = await this.store.queryUsage({
      keyId,
      endUser: query.end_user || undefined,
      groupByEndUser: groupBy === 'end_user',
      accountId: query.account || undefined,
      model: query.model || undefined,
      node: query.node || undefined,
      status: statusParam(query.status),
      requestId: query.request_id || undefined,
      from: timeParam('from', query.from),
      to: timeParam('to', query.to),
      limit,
    });
    return {
      object: 'list',
      data: report.rows.map(usageView),
      totals: totalsView(report.totals),
      ...(report.endUsers === undefined
        ? {}
        : { end_users: report.endUsers.map((group) => ({ end_user: group.endUser, ...totalsView(group) })) }),
    };
  }
}
