import type { KeyStatus } from '../../config/gateway-config.js';
import type { AffinityOutcome } from '../../context/request-context.js';
import type {
  AccountPatch,
  AccountRecord,
  BalanceEntry,
  FeaturePolicy,
  KeyFilter,
  KeyPatch,
  KeyRecord,
  LedgerKind,
  ModelPriceRecord,
  NewAccount,
  NewKey,
  RateLimits,
  SettledBalances,
  StoreChange,
  UsageFilter,
  UsageReport,
  UsageFeatures,
  UsageRow,
  UsageStatsBucket,
  UsageStatsQuery,
} from '../records.js';
import type { Store, StoreKind } from '../store.js';
import { migrate } from './migrate.js';
import { SqlClusterStore } from './sql-cluster-store.js';
import { SqlResponseRows } from './sql-response-rows.js';
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
const json = (value: unknown): string | null => (value === null || value === undefined ? null : JSON.stringify(value));

function accountOf(row: Row): AccountRecord {
  return {
    id: String(row.id),
    name: textOrNull(row.name),
    balanceNano: num(row.balance_nano),
    allowedModels: (row.allowed_models as string[] | null) ?? null,
    limits: (row.limits as RateLimits | null) ?? null,
    policy: (row.policy as FeaturePolicy | null) ?? null,
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
    status: row.status as KeyStatus,
    statusReason: textOrNull(row.status_reason),
    source: row.source === 'config' ? 'config' : 'admin',
    spendLimitNano: numOrNull(row.spend_limit_nano),
    spentNano: num(row.spent_nano),
    limits: (row.limits as RateLimits | null) ?? null,
    allowedModels: (row.allowed_models as string[] | null) ?? null,
    policy: (row.policy as FeaturePolicy | null) ?? null,
    createdAt: iso(row.created_at),
    lastUsedAt: isoOrNull(row.last_used_at),
  };
}

function entryOf(row: Row): BalanceEntry {
  return {
    id: num(row.id),
    accountId: String(row.account_id),
    kind: row.kind as LedgerKind,
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
    features: typeof row.features === 'string' ? (JSON.parse(row.features) as UsageFeatures) : null,
    affinity: textOrNull(row.affinity) as AffinityOutcome | null,
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
    features: row.features === undefined || row.features === null ? null : JSON.stringify(row.features),
    affinity: row.affinity ?? null,
    created_at: row.createdAt,
  };
}

const USAGE_COLUMNS =
  'request_id, correlation_id, key_id, account_id, model, node, attempts, prompt_tokens, completion_tokens, reasoning_tokens, cached_tokens, cache_write_tokens, cache_write_1h_tokens, cost_nano, estimated, status, error_code, latency_ms, first_byte_ms, stream, finish_reason, front_door, features, affinity, created_at';

const RECORD_USAGE = `
  WITH input AS (
    SELECT * FROM json_to_recordset($1::json) AS r(
      request_id text, correlation_id text, key_id text, account_id text, model text, node text,
      attempts integer, prompt_tokens integer, completion_tokens integer, reasoning_tokens integer,
      cached_tokens integer, cache_write_tokens integer, cache_write_1h_tokens integer, cost_nano bigint, estimated boolean, status integer, error_code text,
      latency_ms double precision, first_byte_ms double precision, stream boolean, finish_reason text,
      front_door text, features text, affinity text, created_at timestamptz)
  ), inserted AS (
    INSERT INTO usage_ledger (${USAGE_COLUMNS})
    SELECT ${USAGE_COLUMNS} FROM input
    ON CONFLICT (request_id) DO NOTHING
    RETURNING key_id, account_id, cost_nano, created_at
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
  SELECT (SELECT count(*) FROM held_accounts) + (SELECT count(*) FROM held_keys) AS held, (SELECT count(*) FROM charged_accounts) + (SELECT count(*) FROM charged_keys) AS touched`;

function usageWhere(filter: UsageFilter): { where: string; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const add = (clause: string, value: unknown) => {
    params.push(value);
    clauses.push(clause.replace('?', `$${params.length}`));
  };
  if (filter.keyId !== undefined) add('key_id = ?', filter.keyId);
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
        `INSERT INTO accounts (id, name, balance_nano, allowed_models, limits, policy)
         VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb) ON CONFLICT (id) DO NOTHING RETURNING id`,
        [
          account.id,
          account.name ?? null,
          account.balanceNano,
          account.allowedModels ?? null,
          json(account.limits),
          json(account.policy),
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
      return entryOf(entry as Row);
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
        `INSERT INTO api_keys (id, hash, prefix, account_id, name, status, spend_limit_nano, limits, allowed_models, policy, source, status_reason)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10::jsonb, $11, $12) ON CONFLICT DO NOTHING RETURNING id`,
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
      ]);
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
      return {
        accounts: new Map(accounts.map((row) => [row.id, num(row.balance_nano)])),
        keys: new Map(keys.map((row) => [row.id, num(row.spent_nano)])),
      };
    });
  }

  async queryUsage(filter: UsageFilter): Promise<UsageReport> {
    const { where, params } = usageWhere(filter);
    const rows = await this.db.query(
      `SELECT ${USAGE_COLUMNS} FROM usage_ledger ${where} ORDER BY created_at DESC, id DESC LIMIT ${Math.max(0, Math.floor(filter.limit))}`,
      params,
    );
    const [totals] = await this.db.query(
      `SELECT count(*) AS requests, coalesce(sum(prompt_tokens), 0) AS prompt_tokens, coalesce(sum(completion_tokens), 0) AS completion_tokens,
         coalesce(sum(reasoning_tokens), 0) AS reasoning_tokens, coalesce(sum(cached_tokens), 0) AS cached_tokens,
         coalesce(sum(cache_write_tokens), 0) AS cache_write_tokens,
         coalesce(sum(cost_nano), 0) AS cost_nano
       FROM usage_ledger ${where}`,
      params,
    );
    const total = totals as Row;
    return {
      rows: rows.map(usageOf),
      totals: {
        requests: num(total.requests),
        promptTokens: num(total.prompt_tokens),
        completionTokens: num(total.completion_tokens),
        reasoningTokens: num(total.reasoning_tokens),
        cachedTokens: num(total.cached_tokens),
        cacheWriteTokens: num(total.cache_write_tokens),
        costNano: num(total.cost_nano),
      },
    };
  }

  async usageStats(query: UsageStatsQuery): Promise<UsageStatsBucket[]> {
    const group = query.groupBy === 'model' ? 'model' : query.groupBy === 'node' ? 'node' : 'NULL::text';
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
