import type {
  AccountPatch,
  AccountRecord,
  BalanceEntry,
  BudgetWindowRef,
  EndUserWindow,
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
  UsageStatsBucket,
  UsageStatsQuery,
} from './records.js';
import type { SpendHoldStore } from './spend-holds.js';
import type { ClusterStore } from './cluster-store.js';
import type { ResponseRows } from './response-rows.js';
import type { RequestLogRows } from './request-log-rows.js';

export type StoreKind = 'memory' | 'pglite' | 'postgres';

/**
 * Where keys, accounts, balances and the usage ledger live. Nothing on the request path
 * calls it: the gateway serves keys and accounts from an in-process cache and writes usage
 * in batches. Two implementations: SQL (PGlite and PostgreSQL share one schema and one set
 * of migrations) and memory (tests, throwaway demos).
 */
export interface Store {
  readonly kind: StoreKind;
  /** A short description without credentials, for logs. */
  readonly description: string;
  /** Present when several instances share the store: their spend must be coordinated. */
  readonly spendHolds?: SpendHoldStore;

  /** Every account and every key that is not deleted, for the cache. */
  loadAll(): Promise<{ accounts: AccountRecord[]; keys: KeyRecord[] }>;
  getAccount(id: string): Promise<AccountRecord | undefined>;
  getKey(id: string): Promise<KeyRecord | undefined>;

  /** Inserts an account with its initial balance entry; false when the id exists. */
  insertAccountIfAbsent(account: NewAccount, reason: string): Promise<boolean>;
  updateAccount(id: string, patch: AccountPatch): Promise<AccountRecord | undefined>;
  /**
   * Adds (or, negative, removes) money with a ledger entry, in one atomic step; undefined
   * when there is no such account, or when the balance would end beyond ±`maxBalanceNano`
   * (unless it moves towards zero): then nothing changes.
   */
  adjustBalance(
    accountId: string,
    amountNano: number,
    kind: LedgerKind,
    reason: string,
    maxBalanceNano: number,
  ): Promise<BalanceEntry | undefined>;
  balanceEntries(accountId: string, limit: number): Promise<BalanceEntry[]>;

  /** Inserts a key unless one with the same hash exists; false when it does. */
  insertKeyIfAbsent(key: NewKey): Promise<boolean>;
  updateKey(id: string, patch: KeyPatch): Promise<KeyRecord | undefined>;
  listKeys(filter: KeyFilter): Promise<KeyRecord[]>;
  /**
   * Gives a key a new secret (`rotation.hash`): its current one becomes the previous secret,
   * accepted until `rotation.previousExpiresAt` (a secret an earlier rotation left is
   * dropped). Undefined when there is no such key or it is deleted.
   */
  rotateKey(id: string, rotation: KeyRotation): Promise<KeyRecord | undefined>;

  upsertModelPrices(models: readonly ModelPriceRecord[]): Promise<void>;

  /**
   * Books usage rows in one transaction: inserts each row once (a row whose request id is
   * already booked is skipped, so replays are safe), takes the cost from the account's
   * balance and adds it to the key's spend, and sets `last_used_at`. Returns the new
   * committed balance and spend of every account and key touched. With `holder`, the
   * booked costs also come out of that instance's spend holds.
   */
  recordUsage(rows: readonly UsageRow[], holder?: string): Promise<SettledBalances>;
  /** The committed spend of each budget window (0 for one nothing was booked into), by budgetWindowKey. */
  windowSpend(windows: readonly BudgetWindowRef[]): Promise<Map<string, number>>;
  /**
   * The end users of a key that have committed spend in any of the given windows of its
   * end-user budgets (period and start), the highest spend in one window first, at most `limit`.
   */
  endUsersWithSpend(keyId: string, windows: readonly EndUserWindow[], limit: number): Promise<string[]>;
  queryUsage(filter: UsageFilter): Promise<UsageReport>;
  /**
   * Requests, errors, latency percentiles, tokens and cost per time bucket (and per model
   * or node) over the usage ledger; the memory store answers over its kept rows.
   */
  usageStats(query: UsageStatsQuery): Promise<UsageStatsBucket[]>;

  /** Node drain/ejection shared between instances and the registry of live instances. */
  readonly cluster: ClusterStore;
  /** Stored responses of the Responses API (retention and size policy: src/responses-state). */
  readonly responseRows: ResponseRows;
  /** The request record (PRODUCT decision 28): one row per request with a valid key, written in batches. */
  readonly requestLog: RequestLogRows;

  /** Calls `listener` for every change made by any writer (other processes too, where the backend can tell). */
  onChange(listener: (change: StoreChange) => void): void;
  /** Resolves when the store answers. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
