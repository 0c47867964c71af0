import type { BudgetPeriod, KeyStatus } from '../../config/gateway-config.js';
import type { AffinityOutcome } from '../../context/request-context.js';
import type {
  AccountPatch,
  AccountRecord,
  BalanceEntry,
  BudgetRule,
  BudgetWindowRef,
  EndUserWindow,
  FeaturePolicy,
  RequestLogSetting,
  KeyFilter,
  KeyPatch,
  KeyRecord,
  KeyRotation,
  LedgerKind,
  ModelPriceRecord,
  NewAccount,
  NewKey,
  RateLimits,
  SettledBalances,
  StoreChange,
  UsageFilter,
  UsageReport,
  UsageTotals,
  UsageFeatures,
  UsageRow,
  UsageStatsBucket,
  UsageStatsQuery,
} from '../records.js';
import { budgetWindowKey, MAX_END_USER_GROUPS } from '../records.js';
import type { Store, StoreKind } from '../store.js';
import { migrate } from './migrate.js';
import { fieldOf } from '../../validation/field-of.js';
import { SqlClusterStore } from './sql-cluster-store.js';
import { SqlResponseRows } from './sql-response-rows.js';
import { SqlRequestLog } from './sql-request-log.js';
import { RECONNECTED, type SqlDriver, type SqlQueryable } from './sql-driver.js';
import { SqlSpendHolds } from './sql-spend-holds.js';
import type { SpendHoldStore } from '../spend-holds.js';

const CHANGES_CHANNEL = 'switchyard_changes';

type Row = Record<string, unknown>;

const iso = (value: unknown): string =>
  value instanceof Date ? value.toISOString() : new Date(String(value)).toISOString();
const isoOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : iso(value));
const num = (value: unknown): number => Number(value);
const numOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));
const textOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));
/** Budgets as stored: `[{ period, limit_nano }]`. */
function budgetsOf(value: unknown): BudgetRule[] | null {
  if (!Array.isArray(value)) return null;
  return value.map((budget: { period: BudgetPeriod; limit_nano: unknown }) => ({
    period: budget.period,
    limitNano: Number(budget.limit_nano),
  }));
}
const budgetsJson = (budgets: readonly BudgetRule[] | null | undefined): string | null =>
  budgets === null || budgets === undefined
    ? null
    : JSON.stringify(budgets.map((budget) => ({ period: budget.period, limit_nano: budget.limitNano })));
const json = (value: unknown): string | null => (value === null || value === undefined ? null : JSON.stringify(value));

/** The `request_log` column (migration 10): null, or `{"bodies": …}`. */
function requestLogOf(value: unknown): RequestLogSetting | null {
  const setting: unknown = typeof value === 'string' ? JSON.parse(value) : value;
  return setting === null || setting === undefined ? null : { bodies: fieldOf(setting, 'bodies') === true };
}

const KEY_STATUSES: readonly KeyStatus[] = ['active', 'blocked', 'revoked', 'deleted'];
const LEDGER_KINDS: readonly LedgerKind[] = ['initial', 'topup', 'adjustment'];
const AFFINITY_OUTCOMES: readonly AffinityOutcome[] = ['hit', 'spill', 'none'];

/** A column's value when it is one of `allowed`. */
function oneOf<T extends string>(value: unknown, allowed: readonly T[]): T | undefined {
  return allowed.find((candidate) => candidate === value);
}

/** A text[] column (allowed models): null stays null. */
function textsOrNull(value: unknown): string[] | null {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : null;
}

function accountOf(row: Row): AccountRecord {
  return {
    id: String(row.id),
    name: textOrNull(row.name),
    balanceNano: num(row.balance_nano),
    allowedModels: textsOrNull(row.allowed_models),
    limits: (row.limits as RateLimits | null) ?? null,
    policy: (row.policy as FeaturePolicy | null) ?? null,
    requestLog: requestLogOf(row.request_log),
    budgets: budgetsOf(row.budgets),
    createdAt: iso(row.created_at),
  };
}

function keyOf(row: Row): KeyRecord {
  return {
    id: String(row.id),
    hash: String(row.hash),
    prefix: String(row.prefix),
    accountId: textOrNull(row.account_id),
    name: textOrNull(row.name),
    // A status this build does not know (written by a newer one) keeps the key from being used.
    status: oneOf(row.status, KEY_STATUSES) ?? 'blocked',
    statusReason: textOrNull(row.status_reason),
    source: row.source === 'config' ? 'config' : 'admin',
    spendLimitNano: numOrNull(row.spend_limit_nano),
    spentNano: num(row.spent_nano),
    limits: (row.limits as RateLimits | null) ?? null,
    allowedModels: textsOrNull(row.allowed_models),
    policy: (row.policy as FeaturePolicy | null) ?? null,
    requestLog: requestLogOf(row.request_log),
    budgets: budgetsOf(row.budgets),
    endUserBudgets: budgetsOf(row.end_user_budgets),
    createdAt: iso(row.created_at),
    lastUsedAt: isoOrNull(row.last_used_at),
    expiresAt: isoOrNull(row.expires_at),
    previous:
      row.previous_hash === null || row.previous_hash === undefined || row.previous_expires_at === null
        ? null
        : {
            hash: String(row.previous_hash),
            prefix: String(row.previous_prefix),
            expiresAt: iso(row.previous_expires_at),
          },
  };
}

function entryOf(row: Row): BalanceEntry {
  return {
    id: num(row.id),
    accountId: String(row.account_id),
    kind: oneOf(row.kind, LEDGER_KINDS) ?? 'adjustment',
    amountNano: num(row.amount_nano),
    balanceAfterNano: num(row.balance_after_nano),
    reason: String(row.reason),
    createdAt: iso(row.created_at),
  };
}

function usageOf(row: Row): UsageRow {
  return {
    requestId: String(row.request_id),
    correlationId: String(row.correlation_id),
    keyId: String(row.key_id),
    accountId: textOrNull(row.account_id),
    model: String(row.model),
    modelRequested: textOrNull(row.model_requested),
    node: textOrNull(row.node),
    attempts: num(row.attempts),
    promptTokens: num(row.prompt_tokens),
    completionTokens: num(row.completion_tokens),
    reasoningTokens: num(row.reasoning_tokens),
    cachedTokens: num(row.cached_tokens),
    cacheWriteTokens: num(row.cache_write_tokens),
    cacheWrite1hTokens: num(row.cache_write_1h_tokens),
    costNano: num(row.cost_nano),
    estimated: Boolean(row.estimated),
    status: num(row.status),
    errorCode: textOrNull(row.error_code),
    latencyMs: num(row.latency_ms),
    firstByteMs: numOrNull(row.first_byte_ms),
    stream: Boolean(row.stream),
    finishReason: textOrNull(row.finish_reason),
    frontDoor: String(row.front_door),
    endUser: textOrNull(row.end_user),
    features: typeof row.features === 'string' ? (JSON.parse(row.features) as UsageFeatures) : null,
    affinity: oneOf(row.affinity, AFFINITY_OUTCOMES) ?? null,
    createdAt: iso(row.created_at),
  };
}

/** The columns of a usage row as JSON for `json_to_recordset`. */
function usageJson(row: UsageRow) {
  return {
    request_id: row.requestId,
    correlation_id: row.correlationId,
    key_id: row.keyId,
    account_id: row.accountId,
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
    cost_nano: row.costNano,
    estimated: row.estimated,
    status: row.status,
    error_code: row.errorCode,
    latency_ms: row.latencyMs,
    first_byte_ms: row.firstByteMs,
    stream: row.stream,
    finish_reason: row.finishReason,
    front_door: row.frontDoor,
    end_user: row.endUser ?? null,
    features: row.features === undefined || row.features === null ? null : JSON.stringify(row.features),
    affinity: row.affinity ?? null,
    created_at: row.createdAt,
    budget_windows: row.budgetWindows?.map(windowJson) ?? null,
  };
}

/** A budget window as the usage batch books it (`hold_id`: its spend-hold subject). */
function windowJson(window: BudgetWindowRef) {
  return {
    owner_kind: window.ownerKind,
    owner_id: window.ownerId,
    end_user: window.endUser ?? '',
    period: window.period,
    window_start: window.start,
    hold_id: budgetWindowKey(window),
  };
}

const USAGE_COLUMNS =
  'request_id, correlation_id, key_id, account_id, model, model_requested, node, attempts, prompt_tokens, completion_tokens, reasoning_tokens, cached_tokens, cache_write_tokens, cache_write_1h_tokens, cost_nano, estimated, status, error_code, latency_ms, first_byte_ms, stream, finish_reason, front_door, end_user, features, affinity, created_at';

const RECORD_USAGE = `
  WITH input AS (
    SELECT * FROM json_to_recordset($1::json) AS r(
      request_id text, correlation_id text, key_id text, account_id text, model text, model_requested text, node text,
      attempts integer, prompt_tokens integer, completion_tokens integer, reasoning_tokens integer,
      cached_tokens integer, cache_write_tokens integer, cache_write_1h_tokens integer, cost_nano bigint, estimated boolean, status integer, error_code text,
      latency_ms double precision, first_byte_ms double precision, stream boolean, finish_reason text,
      front_door text, end_user text, features text, affinity text, created_at timestamptz, budget_windows json)
  ), inserted AS (
    INSERT INTO usage_ledger (${USAGE_COLUMNS})
    SELECT ${USAGE_COLUMNS} FROM input
    ON CONFLICT (request_id) DO NOTHING
    RETURNING request_id, key_id, account_id, cost_nano, created_at
  ), window_costs AS (
    SELECT w.owner_kind, w.owner_id, w.end_user, w.period, w.window_start, w.hold_id, sum(i.cost_nano) AS total
    FROM inserted AS i JOIN input AS r ON r.request_id = i.request_id
    CROSS JOIN LATERAL json_to_recordset(r.budget_windows) AS w(
      owner_kind text, owner_id text, end_user text, period text, window_start timestamptz, hold_id text)
    GROUP BY 1, 2, 3, 4, 5, 6
  ), booked_windows AS (
    INSERT INTO budget_spend (owner_kind, owner_id, end_user, period, window_start, spent_nano)
    SELECT owner_kind, owner_id, end_user, period, window_start, total FROM window_costs
    ON CONFLICT (owner_kind, owner_id, period, window_start, end_user)
      DO UPDATE SET spent_nano = budget_spend.spent_nano + EXCLUDED.spent_nano
    RETURNING 1
  ), held_windows AS (
    UPDATE spend_holds AS h SET amount_nano = GREATEST(h.amount_nano - s.total, 0)
    FROM window_costs AS s
    WHERE h.holder = $2 AND h.kind = 'window' AND h.subject_id = s.hold_id
    RETURNING 1
  ), charged_accounts AS (
    UPDATE accounts AS a SET balance_nano = a.balance_nano - s.total, updated_at = now()
    FROM (SELECT account_id, sum(cost_nano) AS total FROM inserted WHERE account_id IS NOT NULL GROUP BY account_id) AS s
    WHERE a.id = s.account_id
    RETURNING a.id
  ), charged_keys AS (
    UPDATE api_keys AS k SET spent_nano = k.spent_nano + s.total,
      last_used_at = GREATEST(k.last_used_at, s.last_used)
    FROM (SELECT key_id, sum(cost_nano) AS total, max(created_at) AS last_used FROM inserted GROUP BY key_id) AS s
    WHERE k.id = s.key_id
    RETURNING k.id
  ), held_accounts AS (
    UPDATE spend_holds AS h SET amount_nano = GREATEST(h.amount_nano - s.total, 0)
    FROM (SELECT account_id, sum(cost_nano) AS total FROM inserted WHERE account_id IS NOT NULL GROUP BY account_id) AS s
    WHERE h.holder = $2 AND h.kind = 'account' AND h.subject_id = s.account_id
    RETURNING 1
  ), held_keys AS (
    UPDATE spend_holds AS h SET amount_nano = GREATEST(h.amount_nano - s.total, 0)
    FROM (SELECT key_id, sum(cost_nano) AS total FROM inserted GROUP BY key_id) AS s
    WHERE h.holder = $2 AND h.kind = 'key' AND h.subject_id = s.key_id
    RETURNING 1
  )
  SELECT (SELECT count(*) FROM held_accounts) + (SELECT count(*) FROM held_keys) + (SELECT count(*) FROM held_windows) + (SELECT count(*) FROM booked_windows) AS held, (SELECT count(*) FROM charged_accounts) + (SELECT count(*) FROM charged_keys) AS touched`;

function usageWhere(filter: UsageFilter): { where: string; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const add = (clause: string, value: unknown) => {
    params.push(value);
    clauses.push(clause.replace('?', `$${params.length}`));
  };
  if (filter.keyId !== undefined) add('key_id = ?', filter.keyId);
  if (filter.endUser !== undefined) add('end_user = ?', filter.endUser);
  if (filter.accountId !== undefined) add('account_id = ?', filter.accountId);
  if (filter.model !== undefined) add('model = ?', filter.model);
  if (filter.node !== undefined) add('node = ?', filter.node);
  if (filter.requestId !== undefined) add('request_id = ?', filter.requestId);
  if (filter.status === 'ok') clauses.push('status < 400');
  else if (filter.status === 'error') clauses.push('status >= 400');
  else if (filter.status !== undefined) add('status = ?', filter.status);
  if (filter.from !== undefined) add('created_at >= ?', filter.from);
  if (filter.to !== undefined) add('created_at < ?', filter.to);
  return { where: clauses.length === 0 ? '' : `WHERE ${clauses.join(' AND ')}`, params };
}

const TOTALS_COLUMNS = `count(*) AS requests, coalesce(sum(prompt_tokens), 0) AS prompt_tokens,
  coalesce(sum(completion_tokens), 0) AS completion_tokens, coalesce(sum(reasoning_tokens), 0) AS reasoning_tokens,
  coalesce(sum(cached_tokens), 0) AS cached_tokens, coalesce(sum(cache_write_tokens), 0) AS cache_write_tokens,
  coalesce(sum(cost_nano), 0) AS cost_nano`;

function totalsOf(row: Row): UsageTotals {
  return {
    requests: num(row.requests),
    promptTokens: num(row.prompt_tokens),
    completionTokens: num(row.completion_tokens),
    reasoningTokens: num(row.reasoning_tokens),
    cachedTokens: num(row.cached_tokens),
    cacheWriteTokens: num(row.cache_write_tokens),
    costNano: num(row.cost_nano),
  };
}

/** [column, value, cast, skip]: a column is left alone when its value is undefined (or `skip`). */
type ColumnUpdate = readonly [column: string, value: unknown, cast?: string, skip?: boolean];

/** `UPDATE table SET <given columns>, updated_at = now() WHERE id = $1 <condition> RETURNING *`. */
async function updateRow(
  tx: SqlQueryable,
  table: string,
  id: string,
  condition: string,
  columns: readonly ColumnUpdate[],
): Promise<Row | undefined> {
  const params: unknown[] = [id];
  const sets: string[] = [];
  for (const [column, value, cast = '', skip = value === undefined] of columns) {
    if (skip) continue;
    params.push(value);
    sets.push(`${column} = $${params.length}${cast}`);
  }
  sets.push('updated_at = now()');
  const [row] = await tx.query(`UPDATE ${table} SET ${sets.join(', ')} WHERE id = $1 ${condition} RETURNING *`, params);
  return row;
}

/** Store over SQL: PGlite (embedded) or PostgreSQL, one schema (see migrations.ts). */
export class SqlStore implements Store {
  private readonly listeners: Array<(change: StoreChange) => void> = [];
  readonly spendHolds: SpendHoldStore | undefined;
  readonly cluster: SqlClusterStore;
  readonly responseRows: SqlResponseRows;
  readonly requestLog: SqlRequestLog;

  private constructor(
    readonly kind: StoreKind,
    readonly description: string,
    private readonly db: SqlDriver,
    /** true: changes arrive through LISTEN (other processes write too). */
    private readonly sharedChanges: boolean,
  ) {
    this.spendHolds = sharedChanges ? new SqlSpendHolds(db, CHANGES_CHANNEL) : undefined;
    this.cluster = new SqlClusterStore(db, (tx, change) => this.changed(tx, change), sharedChanges);
    this.responseRows = new SqlResponseRows(db);
    this.requestLog = new SqlRequestLog(db);
  }

  /** Migrates, then subscribes to changes. */
  static async open(kind: StoreKind, description: string, db: SqlDriver): Promise<SqlStore> {
    await migrate(db);
    const store = new SqlStore(kind, description, db, kind === 'postgres');
    if (store.sharedChanges) {
      await db.listen(CHANGES_CHANNEL, (payload) => {
        if (payload === RECONNECTED) {
          store.emit({ kind: 'all', id: '' });
          return;
        }
        try {
          store.emit(JSON.parse(payload) as StoreChange);
        } catch {
          // Not ours.
        }
      });
    }
    return store;
  }

  onChange(listener: (change: StoreChange) => void): void {
    this.listeners.push(listener);
  }

  private emit(change: StoreChange): void {
    for (const listener of this.listeners) listener(change);
  }

  /** Tells every instance (through NOTIFY, delivered at commit) or this one that a record changed. */
  private async changed(tx: SqlQueryable, change: StoreChange): Promise<void> {
    if (this.sharedChanges) await tx.query('SELECT pg_notify($1, $2)', [CHANGES_CHANNEL, JSON.stringify(change)]);
    else queueMicrotask(() => this.emit(change));
  }

  async loadAll() {
    const [accounts, keys] = await Promise.all([
      this.db.query('SELECT * FROM accounts'),
      this.db.query("SELECT * FROM api_keys WHERE status <> 'deleted'"),
    ]);
    return { accounts: accounts.map(accountOf), keys: keys.map(keyOf) };
  }

  async getAccount(id: string) {
    const [row] = await this.db.query('SELECT * FROM accounts WHERE id = $1', [id]);
    return row && accountOf(row);
  }

  async getKey(id: string) {
    const [row] = await this.db.query('SELECT * FROM api_keys WHERE id = $1', [id]);
    return row && keyOf(row);
  }

  insertAccountIfAbsent(account: NewAccount, reason: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const inserted = await tx.query(
        `INSERT INTO accounts (id, name, balance_nano, allowed_models, limits, policy, request_log, budgets)
         VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7::jsonb, $8::jsonb) ON CONFLICT (id) DO NOTHING RETURNING id`,
        [
          account.id,
          account.name ?? null,
          account.balanceNano,
          account.allowedModels ?? null,
          json(account.limits),
          json(account.policy),
          json(account.requestLog),
          budgetsJson(account.budgets),
        ],
      );
      if (inserted.length === 0) return false;
      await tx.query(
        `INSERT INTO balance_ledger (account_id, kind, amount_nano, balance_after_nano, reason) VALUES ($1, 'initial', $2, $2, $3)`,
        [account.id, account.balanceNano, reason],
      );
      await this.changed(tx, { kind: 'account', id: account.id });
      return true;
    });
  }

  updateAccount(id: string, patch: AccountPatch): Promise<AccountRecord | undefined> {
    return this.db.transaction(async (tx) => {
      const row = await updateRow(tx, 'accounts', id, '', [
        ['name', patch.name],
        ['allowed_models', patch.allowedModels],
        ['limits', json(patch.limits), '::jsonb', patch.limits === undefined],
        ['policy', json(patch.policy), '::jsonb', patch.policy === undefined],
        ['request_log', json(patch.requestLog), '::jsonb', patch.requestLog === undefined],
        ['budgets', budgetsJson(patch.budgets), '::jsonb', patch.budgets === undefined],
      ]);
      if (row === undefined) return undefined;
      await this.changed(tx, { kind: 'account', id });
      return accountOf(row);
    });
  }

  adjustBalance(
    accountId: string,
    amountNano: number,
    kind: LedgerKind,
    reason: string,
    maxBalanceNano: number,
  ): Promise<BalanceEntry | undefined> {
    return this.db.transaction(async (tx) => {
      const [account] = await tx.query<{ balance_nano: unknown }>(
        `UPDATE accounts SET balance_nano = balance_nano + $2, updated_at = now()
         WHERE id = $1 AND (abs(balance_nano + $2) <= $3 OR abs(balance_nano + $2) < abs(balance_nano))
         RETURNING balance_nano`,
        [accountId, amountNano, maxBalanceNano],
      );
      if (account === undefined) return undefined;
      const [entry] = await tx.query(
        `INSERT INTO balance_ledger (account_id, kind, amount_nano, balance_after_nano, reason)
         VALUES ($1, $2, $3, $4, $5) RETURNING *`,
        [accountId, kind, amountNano, num(account.balance_nano), reason],
      );
      await this.changed(tx, { kind: 'account', id: accountId });
      if (entry === undefined) throw new Error('the ledger insert returned no row');
      return entryOf(entry);
    });
  }

  async balanceEntries(accountId: string, limit: number) {
    const rows = await this.db.query('SELECT * FROM balance_ledger WHERE account_id = $1 ORDER BY id DESC LIMIT $2', [
      accountId,
      limit,
    ]);
    return rows.map(entryOf);
  }

  insertKeyIfAbsent(key: NewKey): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const inserted = await tx.query(
        `INSERT INTO api_keys (id, hash, prefix, account_id, name, status, spend_limit_nano, limits, allowed_models, policy, source, status_reason, request_log, budgets, end_user_budgets, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10::jsonb, $11, $12, $13::jsonb, $14::jsonb, $15::jsonb, $16) ON CONFLICT DO NOTHING RETURNING id`,
        [
          key.id,
          key.hash,
          key.prefix,
          key.accountId,
          key.name ?? null,
          key.status ?? 'active',
          key.spendLimitNano ?? null,
          json(key.limits),
          key.allowedModels ?? null,
          json(key.policy),
          key.source ?? 'admin',
          key.statusReason ?? null,
          json(key.requestLog),
          budgetsJson(key.budgets),
          budgetsJson(key.endUserBudgets),
          key.expiresAt ?? null,
        ],
      );
      if (inserted.length === 0) return false;
      await this.changed(tx, { kind: 'key', id: key.id });
      return true;
    });
  }

  updateKey(id: string, patch: KeyPatch): Promise<KeyRecord | undefined> {
    return this.db.transaction(async (tx) => {
      // A deleted key stays deleted.
      const row = await updateRow(tx, 'api_keys', id, "AND status <> 'deleted'", [
        ['name', patch.name],
        ['status', patch.status],
        ['status_reason', patch.statusReason],
        ['spend_limit_nano', patch.spendLimitNano],
        ['limits', json(patch.limits), '::jsonb', patch.limits === undefined],
        ['allowed_models', patch.allowedModels],
        ['policy', json(patch.policy), '::jsonb', patch.policy === undefined],
        ['request_log', json(patch.requestLog), '::jsonb', patch.requestLog === undefined],
        ['budgets', budgetsJson(patch.budgets), '::jsonb', patch.budgets === undefined],
        ['end_user_budgets', budgetsJson(patch.endUserBudgets), '::jsonb', patch.endUserBudgets === undefined],
        ['expires_at', patch.expiresAt],
      ]);
      if (row === undefined) return undefined;
      await this.changed(tx, { kind: 'key', id });
      return keyOf(row);
    });
  }

  rotateKey(id: string, rotation: KeyRotation): Promise<KeyRecord | undefined> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx.query(
        `UPDATE api_keys SET previous_hash = hash, previous_prefix = prefix, previous_expires_at = $4,
           hash = $2, prefix = $3, updated_at = now()
         WHERE id = $1 AND status <> 'deleted' RETURNING *`,
        [id, rotation.hash, rotation.prefix, rotation.previousExpiresAt],
      );
      if (row === undefined) return undefined;
      await this.changed(tx, { kind: 'key', id });
      return keyOf(row);
    });
  }

  async listKeys(filter: KeyFilter) {
    const clauses: string[] = [];
    const params: unknown[] = [];
    if (filter.prefix !== undefined) {
      params.push(`${filter.prefix.replace(/[\\%_]/g, (character) => `\\${character}`)}%`);
      clauses.push(`prefix LIKE $${params.length}`);
    }
    if (filter.accountId !== undefined) {
      params.push(filter.accountId);
      clauses.push(`account_id = $${params.length}`);
    }
    if (filter.source !== undefined) {
      params.push(filter.source);
      clauses.push(`source = $${params.length}`);
    }
    if (filter.includeDeleted !== true) clauses.push("status <> 'deleted'");
    const where = clauses.length === 0 ? '' : `WHERE ${clauses.join(' AND ')}`;
    return (await this.db.query(`SELECT * FROM api_keys ${where} ORDER BY created_at, id`, params)).map(keyOf);
  }

  async upsertModelPrices(models: readonly ModelPriceRecord[]) {
    if (models.length === 0) return;
    await this.db.query(
      `INSERT INTO models (id, input_nano, output_nano, cached_input_nano, reasoning_nano)
       SELECT id, input_nano, output_nano, cached_input_nano, reasoning_nano
       FROM json_to_recordset($1::json) AS r(id text, input_nano bigint, output_nano bigint, cached_input_nano bigint, reasoning_nano bigint)
       ON CONFLICT (id) DO UPDATE SET input_nano = EXCLUDED.input_nano, output_nano = EXCLUDED.output_nano,
         cached_input_nano = EXCLUDED.cached_input_nano, reasoning_nano = EXCLUDED.reasoning_nano, updated_at = now()`,
      [
        JSON.stringify(
          models.map((model) => ({
            id: model.id,
            input_nano: model.inputNano,
            output_nano: model.outputNano,
            cached_input_nano: model.cachedInputNano,
            reasoning_nano: model.reasoningNano,
          })),
        ),
      ],
    );
  }

  recordUsage(rows: readonly UsageRow[], holder?: string): Promise<SettledBalances> {
    const accountIds = [...new Set(rows.flatMap((row) => (row.accountId === null ? [] : [row.accountId])))];
    const keyIds = [...new Set(rows.map((row) => row.keyId))];
    return this.db.transaction(async (tx) => {
      await tx.query(RECORD_USAGE, [JSON.stringify(rows.map(usageJson)), holder ?? null]);
      if (this.sharedChanges) {
        // Other instances reload the balances and spend this batch changed (delivered at commit).
        const changes = [
          ...accountIds.map((id) => ({ kind: 'account', id })),
          ...keyIds.map((id) => ({ kind: 'key', id })),
        ];
        await tx.query('SELECT pg_notify($1, change) FROM unnest($2::text[]) AS change', [
          CHANGES_CHANNEL,
          changes.map((change) => JSON.stringify(change)),
        ]);
      }
      // A second statement sees the first one's updates (the CTE's own snapshot would not).
      const [accounts, keys] = [
        await tx.query<{ id: string; balance_nano: unknown }>(
          'SELECT id, balance_nano FROM accounts WHERE id = ANY($1)',
          [accountIds],
        ),
        await tx.query<{ id: string; spent_nano: unknown }>('SELECT id, spent_nano FROM api_keys WHERE id = ANY($1)', [
          keyIds,
        ]),
      ];
      const windows = rows.flatMap((row) => row.budgetWindows ?? []);
      return {
        accounts: new Map(accounts.map((row) => [row.id, num(row.balance_nano)])),
        keys: new Map(keys.map((row) => [row.id, num(row.spent_nano)])),
        windows: windows.length === 0 ? new Map() : await this.spendOf(tx, windows),
      };
    });
  }

  windowSpend(windows: readonly BudgetWindowRef[]): Promise<Map<string, number>> {
    return this.spendOf(this.db, windows);
  }

  async endUsersWithSpend(keyId: string, windows: readonly EndUserWindow[], limit: number): Promise<string[]> {
    if (windows.length === 0 || limit <= 0) return [];
    const rows = await this.db.query<{ end_user: string }>(
      `SELECT b.end_user
         FROM json_to_recordset($2::json) AS w(period text, window_start timestamptz)
         JOIN budget_spend AS b ON b.owner_kind = 'key' AND b.owner_id = $1 AND b.period = w.period
          AND b.window_start = w.window_start AND b.end_user <> '' AND b.spent_nano > 0
        GROUP BY b.end_user ORDER BY max(b.spent_nano) DESC, b.end_user LIMIT $3`,
      [
        keyId,
        JSON.stringify(windows.map((window) => ({ period: window.period, window_start: window.start }))),
        Math.floor(limit),
      ],
    );
    return rows.map((row) => row.end_user);
  }

  private async spendOf(db: SqlQueryable, windows: readonly BudgetWindowRef[]): Promise<Map<string, number>> {
    const spent = new Map(windows.map((window) => [budgetWindowKey(window), 0]));
    if (windows.length === 0) return spent;
    const rows = await db.query<{ hold_id: string; spent_nano: unknown }>(
      `SELECT w.hold_id, b.spent_nano
         FROM json_to_recordset($1::json) AS w(owner_kind text, owner_id text, end_user text, period text, window_start timestamptz, hold_id text)
         JOIN budget_spend AS b ON b.owner_kind = w.owner_kind AND b.owner_id = w.owner_id AND b.period = w.period
          AND b.window_start = w.window_start AND b.end_user = w.end_user`,
      [JSON.stringify(windows.map(windowJson))],
    );
    for (const row of rows) spent.set(row.hold_id, num(row.spent_nano));
    return spent;
  }

  async queryUsage(filter: UsageFilter): Promise<UsageReport> {
    const { where, params } = usageWhere(filter);
    const rows = await this.db.query(
      `SELECT ${USAGE_COLUMNS} FROM usage_ledger ${where} ORDER BY created_at DESC, id DESC LIMIT ${Math.max(0, Math.floor(filter.limit))}`,
      params,
    );
    const [totals] = await this.db.query(`SELECT ${TOTALS_COLUMNS} FROM usage_ledger ${where}`, params);
    const endUsers =
      filter.groupByEndUser === true
        ? await this.db.query(
            `SELECT end_user, ${TOTALS_COLUMNS} FROM usage_ledger ${where}
             GROUP BY end_user ORDER BY cost_nano DESC, requests DESC, end_user LIMIT ${MAX_END_USER_GROUPS}`,
            params,
          )
        : undefined;
    return {
      rows: rows.map(usageOf),
      // An aggregate without GROUP BY always returns its one row.
      totals: totalsOf(totals ?? {}),
      ...(endUsers === undefined
        ? {}
        : { endUsers: endUsers.map((row) => ({ endUser: textOrNull(row.end_user), ...totalsOf(row) })) }),
    };
  }

  async usageStats(query: UsageStatsQuery): Promise<UsageStatsBucket[]> {
    const group =
      query.groupBy === 'model'
        ? 'model'
        : query.groupBy === 'node'
          ? 'node'
          : query.groupBy === 'end_user'
            ? 'end_user'
            : 'NULL::text';
    const rows = await this.db.query(
      `SELECT floor(extract(epoch FROM created_at) / $3) * $3 AS bucket, ${group} AS grp,
         count(*) AS requests, count(*) FILTER (WHERE status >= 400) AS errors,
         percentile_cont(0.5) WITHIN GROUP (ORDER BY latency_ms) AS p50,
         percentile_cont(0.95) WITHIN GROUP (ORDER BY latency_ms) AS p95,
         sum(prompt_tokens) AS prompt_tokens, sum(completion_tokens) AS completion_tokens,
         sum(reasoning_tokens) AS reasoning_tokens, sum(cost_nano) AS cost_nano
       FROM usage_ledger WHERE created_at >= $1 AND created_at < $2
       GROUP BY 1, 2 ORDER BY 1, 2`,
      [query.from, query.to, query.bucketSeconds],
    );
    return rows.map((row) => ({
      start: new Date(num(row.bucket) * 1000).toISOString(),
      group: row.grp === null || row.grp === undefined ? null : String(row.grp),
      requests: num(row.requests),
      errors: num(row.errors),
      latencyP50Ms: num(row.p50),
      latencyP95Ms: num(row.p95),
      promptTokens: num(row.prompt_tokens),
      completionTokens: num(row.completion_tokens),
      reasoningTokens: num(row.reasoning_tokens),
      costNano: num(row.cost_nano),
    }));
  }

  async ping() {
    await this.db.query('SELECT 1');
  }

  close() {
    return this.db.close();
  }
}
