import type {
  AccountPatch,
  AccountRecord,
  BalanceEntry,
  KeyFilter,
  KeyPatch,
  KeyRecord,
  KeyRotation,
  LedgerKind,
  ModelPriceRecord,
  NewAccount,
  NewKey,
  SettledBalances,
  StoreChange,
  UsageFilter,
  UsageReport,
  UsageRow,
  UsageTotals,
  UsageStatsBucket,
  UsageStatsQuery,
  BudgetWindowRef,
  EndUserWindow,
} from '../records.js';
import { budgetWindowKey, MAX_END_USER_GROUPS } from '../records.js';
import type { Store } from '../store.js';
import { MemoryClusterStore } from './memory-cluster-store.js';
import { MemoryResponseRows } from './memory-response-rows.js';
import { MemoryRequestLog } from './memory-request-log.js';
import { usageStatsOfRows } from './usage-stats-of-rows.js';
import { MEMORY_STORE_KEPT_USAGE_ROWS, RecentUsageRows } from './recent-usage-rows.js';

const now = () => new Date().toISOString();
/** Budget windows kept before the ones over are swept. */
const MAX_WINDOWS_BEFORE_SWEEP = 100_000;

export interface MemoryStoreOptions {
  /** Usage rows kept for queries, newest; older ones are dropped (default MEMORY_STORE_KEPT_USAGE_ROWS). */
  readonly keptUsageRows?: number;
}

/**
 * The store kept in this process only (`store: memory`): for tests and throwaway demos.
 * Same behaviour as the SQL store, nothing survives a restart, with one difference: only
 * the most recent usage rows are kept (`keptUsageRows`), so usage queries cover those
 * rows only. Balances and key spend are counters and stay exact however many rows
 * were dropped.
 */
export class MemoryStore implements Store {
  readonly kind = 'memory';
  readonly description = 'memory (nothing is kept after exit)';
  private readonly accounts = new Map<string, AccountRecord>();
  private readonly keys = new Map<string, KeyRecord>();
  private readonly entries: BalanceEntry[] = [];
  private readonly usage: RecentUsageRows;
  /** Committed spend per budget window (budgetWindowKey), with the window. */
  private readonly windowSpent = new Map<string, { window: BudgetWindowRef; spentNano: number }>();
  private readonly listeners: Array<(change: StoreChange) => void> = [];
  readonly cluster = new MemoryClusterStore((change) => this.changed(change));
  readonly responseRows = new MemoryResponseRows();
  readonly requestLog = new MemoryRequestLog();

  constructor(options: MemoryStoreOptions = {}) {
    this.usage = new RecentUsageRows(options.keptUsageRows ?? MEMORY_STORE_KEPT_USAGE_ROWS);
  }

  onChange(listener: (change: StoreChange) => void): void {
    this.listeners.push(listener);
  }

  private changed(change: StoreChange): void {
    queueMicrotask(() => {
      for (const listener of this.listeners) listener(change);
    });
  }

  async loadAll() {
    return {
      accounts: [...this.accounts.values()],
      keys: [...this.keys.values()].filter((key) => key.status !== 'deleted'),
    };
  }

  async getAccount(id: string) {
    return this.accounts.get(id);
  }

  async getKey(id: string) {
    return this.keys.get(id);
  }

  async insertAccountIfAbsent(account: NewAccount, reason: string) {
    if (this.accounts.has(account.id)) return false;
    this.accounts.set(account.id, {
      id: account.id,
      name: account.name ?? null,
      balanceNano: account.balanceNano,
      allowedModels: account.allowedModels ?? null,
      limits: account.limits ?? null,
      policy: account.policy ?? null,
      requestLog: account.requestLog ?? null,
      budgets: account.budgets ?? null,
      createdAt: now(),
    });
    this.addEntry(account.id, 'initial', account.balanceNano, account.balanceNano, reason);
    this.changed({ kind: 'account', id: account.id });
    return true;
  }

  async updateAccount(id: string, patch: AccountPatch) {
    const account = this.accounts.get(id);
    if (account === undefined) return undefined;
    const updated: AccountRecord = {
      ...account,
      name: patch.name === undefined ? account.name : patch.name,
      allowedModels: patch.allowedModels === undefined ? account.allowedModels : patch.allowedModels,
      limits: patch.limits === undefined ? account.limits : patch.limits,
      policy: patch.policy === undefined ? account.policy : patch.policy,
      requestLog: patch.requestLog === undefined ? account.requestLog : patch.requestLog,
      budgets: patch.budgets === undefined ? account.budgets : patch.budgets,
    };
    this.accounts.set(id, updated);
    this.changed({ kind: 'account', id });
    return updated;
  }

  async adjustBalance(accountId: string, amountNano: number, kind: LedgerKind, reason: string, maxBalanceNano: number) {
    const account = this.accounts.get(accountId);
    if (account === undefined) return undefined;
    const balanceNano = account.balanceNano + amountNano;
    if (Math.abs(balanceNano) > maxBalanceNano && Math.abs(balanceNano) >= Math.abs(account.balanceNano)) {
      return undefined;
    }
    this.accounts.set(accountId, { ...account, balanceNano });
    const entry = this.addEntry(accountId, kind, amountNano, balanceNano, reason);
    this.changed({ kind: 'account', id: accountId });
    return entry;
  }

  private addEntry(
    accountId: string,
    kind: LedgerKind,
    amountNano: number,
    balanceAfterNano: number,
    reason: string,
  ): BalanceEntry {
    const entry = {
      id: this.entries.length + 1,
      accountId,
      kind,
      amountNano,
      balanceAfterNano,
      reason,
      createdAt: now(),
    };
    this.entries.push(entry);
    return entry;
  }

  async balanceEntries(accountId: string, limit: number) {
    return this.entries
      .filter((entry) => entry.accountId === accountId)
      .reverse()
      .slice(0, limit);
  }

  async insertKeyIfAbsent(key: NewKey) {
    if (this.keys.has(key.id) || [...this.keys.values()].some((existing) => existing.hash === key.hash)) return false;
    this.keys.set(key.id, {
      id: key.id,
      hash: key.hash,
      prefix: key.prefix,
      accountId: key.accountId,
      name: key.name ?? null,
      status: key.status ?? 'active',
      statusReason: key.statusReason ?? null,
      source: key.source ?? 'admin',
      spendLimitNano: key.spendLimitNano ?? null,
      spentNano: 0,
      limits: key.limits ?? null,
      allowedModels: key.allowedModels ?? null,
      policy: key.policy ?? null,
      requestLog: key.requestLog ?? null,
      budgets: key.budgets ?? null,
      endUserBudgets: key.endUserBudgets ?? null,
      createdAt: now(),
      lastUsedAt: null,
      expiresAt: key.expiresAt ?? null,
      previous: null,
    });
    this.changed({ kind: 'key', id: key.id });
    return true;
  }

  async updateKey(id: string, patch: KeyPatch) {
    const key = this.keys.get(id);
    if (key === undefined || key.status === 'deleted') return undefined;
    const updated: KeyRecord = {
      ...key,
      name: patch.name === undefined ? key.name : patch.name,
      status: patch.status ?? key.status,
      statusReason: patch.statusReason === undefined ? key.statusReason : patch.statusReason,
      spendLimitNano: patch.spendLimitNano === undefined ? key.spendLimitNano : patch.spendLimitNano,
      limits: patch.limits === undefined ? key.limits : patch.limits,
      allowedModels: patch.allowedModels === undefined ? key.allowedModels : patch.allowedModels,
      policy: patch.policy === undefined ? key.policy : patch.policy,
      requestLog: patch.requestLog === undefined ? key.requestLog : patch.requestLog,
      budgets: patch.budgets === undefined ? key.budgets : patch.budgets,
      endUserBudgets: patch.endUserBudgets === undefined ? key.endUserBudgets : patch.endUserBudgets,
      expiresAt: patch.expiresAt === undefined ? key.expiresAt : patch.expiresAt,
    };
    this.keys.set(id, updated);
    this.changed({ kind: 'key', id });
    return updated;
  }

  async rotateKey(id: string, rotation: KeyRotation) {
    const key = this.keys.get(id);
    if (key === undefined || key.status === 'deleted') return undefined;
    const updated: KeyRecord = {
      ...key,
      hash: rotation.hash,
      prefix: rotation.prefix,
      previous: { hash: key.hash, prefix: key.prefix, expiresAt: rotation.previousExpiresAt },
    };
    this.keys.set(id, updated);
    this.changed({ kind: 'key', id });
    return updated;
  }

  async listKeys(filter: KeyFilter) {
    return [...this.keys.values()].filter(
      (key) =>
        (filter.prefix === undefined || key.prefix.startsWith(filter.prefix)) &&
        (filter.accountId === undefined || key.accountId === filter.accountId) &&
        (filter.source === undefined || key.source === filter.source) &&
        (filter.includeDeleted === true || key.status !== 'deleted'),
    );
  }

  async upsertModelPrices(_models: readonly ModelPriceRecord[]) {
    // Prices live in the configuration; the memory store has no reporting tables.
  }

  async recordUsage(rows: readonly UsageRow[]): Promise<SettledBalances> {
    // Totals per account and key first, then one new record each: a batch holds up to
    // `usage.max_batch_rows` rows, mostly of the same few keys.
    const charged = new Map<string, number>();
    const spent = new Map<string, { costNano: number; lastUsedAt: string }>();
    for (const row of rows) {
      // A row whose request id was booked already is skipped, like the SQL store's unique
      // request id. Here only the kept rows' ids are remembered, and that is enough: the
      // duplicates the SQL store guards against come from replaying the crash journal at
      // start, and `store: memory` has no journal (nothing survives a restart to replay).
      // A batch the store refuses is retried as a whole, but this store never refuses one.
      if (this.usage.has(row.requestId)) continue;
      this.usage.add(row);
      for (const window of row.budgetWindows ?? []) {
        const key = budgetWindowKey(window);
        this.windowSpent.set(key, {
          window,
          spentNano: (this.windowSpent.get(key)?.spentNano ?? 0) + row.costNano,
        });
      }
      if (row.accountId !== null) charged.set(row.accountId, (charged.get(row.accountId) ?? 0) + row.costNano);
      const total = spent.get(row.keyId);
      if (total === undefined) spent.set(row.keyId, { costNano: row.costNano, lastUsedAt: row.createdAt });
      else {
        total.costNano += row.costNano;
        if (total.lastUsedAt < row.createdAt) total.lastUsedAt = row.createdAt;
      }
    }
    for (const [id, costNano] of charged) {
      const account = this.accounts.get(id);
      if (account !== undefined) this.accounts.set(id, { ...account, balanceNano: account.balanceNano - costNano });
    }
    for (const [id, total] of spent) {
      const key = this.keys.get(id);
      if (key === undefined) continue;
      const lastUsedAt =
        key.lastUsedAt === null || key.lastUsedAt < total.lastUsedAt ? total.lastUsedAt : key.lastUsedAt;
      this.keys.set(id, { ...key, spentNano: key.spentNano + total.costNano, lastUsedAt });
    }
    const accounts = new Map<string, number>();
    const keys = new Map<string, number>();
    for (const row of rows) {
      const account = row.accountId === null ? undefined : this.accounts.get(row.accountId);
      if (account !== undefined) accounts.set(account.id, account.balanceNano);
      const key = this.keys.get(row.keyId);
      if (key !== undefined) keys.set(key.id, key.spentNano);
    }
    const windows = new Map<string, number>();
    for (const row of rows)
      for (const window of row.budgetWindows ?? []) {
        const key = budgetWindowKey(window);
        windows.set(key, this.windowSpent.get(key)?.spentNano ?? 0);
      }
    this.forgetOldWindows();
    return { accounts, keys, windows };
  }

  async windowSpend(windows: readonly BudgetWindowRef[]): Promise<Map<string, number>> {
    return new Map(
      windows.map((window) => [budgetWindowKey(window), this.windowSpent.get(budgetWindowKey(window))?.spentNano ?? 0]),
    );
  }

  async endUsersWithSpend(keyId: string, windows: readonly EndUserWindow[], limit: number): Promise<string[]> {
    const current = new Set(windows.map((window) => `${window.period}:${window.start}`));
    const top = new Map<string, number>();
    for (const { window, spentNano } of this.windowSpent.values()) {
      const { ownerKind, ownerId, endUser, period, start } = window;
      if (ownerKind !== 'key' || ownerId !== keyId || endUser === null || spentNano <= 0) continue;
      if (current.has(`${period}:${start}`)) top.set(endUser, Math.max(top.get(endUser) ?? 0, spentNano));
    }
    return [...top]
      .sort(([userA, a], [userB, b]) => b - a || (userA < userB ? -1 : userA > userB ? 1 : 0))
      .slice(0, Math.max(0, limit))
      .map(([endUser]) => endUser);
  }

  /** Windows that started more than 35 days ago are over (the longest lasts a month): their spend is forgotten. */
  private forgetOldWindows(): void {
    if (this.windowSpent.size < MAX_WINDOWS_BEFORE_SWEEP) return;
    const before = new Date(Date.now() - 35 * 86_400_000).toISOString();
    for (const [key, spent] of this.windowSpent) if (spent.window.start < before) this.windowSpent.delete(key);
  }

  /** Over the kept rows only (see `keptUsageRows`). */
  async queryUsage(filter: UsageFilter): Promise<UsageReport> {
    const from = filter.from === undefined ? undefined : new Date(filter.from).toISOString();
    const to = filter.to === undefined ? undefined : new Date(filter.to).toISOString();
    const newest: UsageRow[] = [];
    const totals = emptyTotals();
    const endUsers = filter.groupByEndUser === true ? new Map<string | null, UsageTotals>() : undefined;
    for (const row of this.usage.newestFirst()) {
      if (
        (filter.keyId !== undefined && row.keyId !== filter.keyId) ||
        (filter.endUser !== undefined && row.endUser !== filter.endUser) ||
        (filter.accountId !== undefined && row.accountId !== filter.accountId) ||
        (filter.model !== undefined && row.model !== filter.model) ||
        (filter.node !== undefined && row.node !== filter.node) ||
        (filter.requestId !== undefined && row.requestId !== filter.requestId) ||
        !statusMatches(row.status, filter.status) ||
        (from !== undefined && row.createdAt < from) ||
        (to !== undefined && row.createdAt >= to)
      ) {
        continue;
      }
      if (newest.length < filter.limit) newest.push(row);
      addRow(totals, row);
      if (endUsers !== undefined) {
        let group = endUsers.get(row.endUser);
        if (group === undefined) endUsers.set(row.endUser, (group = emptyTotals()));
        addRow(group, row);
      }
    }
    if (endUsers === undefined) return { rows: newest, totals };
    return {
      rows: newest,
      totals,
      endUsers: [...endUsers]
        .map(([endUser, group]) => ({ endUser, ...group }))
        .sort(
          (a, b) =>
            b.costNano - a.costNano ||
            b.requests - a.requests ||
            (a.endUser === b.endUser
              ? 0
              : a.endUser === null
                ? 1
                : b.endUser === null
                  ? -1
                  : a.endUser < b.endUser
                    ? -1
                    : 1),
        )
        .slice(0, MAX_END_USER_GROUPS),
    };
  }

  async usageStats(query: UsageStatsQuery): Promise<UsageStatsBucket[]> {
    return usageStatsOfRows(this.usage.newestFirst(), query);
  }

  async ping() {}

  async close() {}
}

type MutableTotals = { -readonly [Field in keyof UsageTotals]: UsageTotals[Field] };

function emptyTotals(): MutableTotals {
  return {
    requests: 0,
    promptTokens: 0,
    completionTokens: 0,
    reasoningTokens: 0,
    cachedTokens: 0,
    cacheWriteTokens: 0,
    costNano: 0,
  };
}

function addRow(totals: MutableTotals, row: UsageRow): void {
  totals.requests++;
  totals.promptTokens += row.promptTokens;
  totals.completionTokens += row.completionTokens;
  totals.reasoningTokens += row.reasoningTokens;
  totals.cachedTokens += row.cachedTokens;
  totals.cacheWriteTokens += row.cacheWriteTokens;
  totals.costNano += row.costNano;
}

function statusMatches(status: number, wanted: UsageFilter['status']): boolean {
  if (wanted === undefined) return true;
  if (wanted === 'ok') return status < 400;
  if (wanted === 'error') return status >= 400;
  return status === wanted;
}
