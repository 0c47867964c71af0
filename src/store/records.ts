import type { AffinityOutcome } from '../context/request-context.js';
import type { ClusterChange } from './cluster-store.js';
import type { BudgetPeriod, KeyStatus, ReasoningEffort } from '../config/gateway-config.js';

/**
 * What the store keeps, in the gateway's own terms. Money is integer nano-USD
 * (1 USD = 1e9) everywhere below the HTTP and CLI surfaces, so sums are exact.
 */

/** Per-minute / per-second request and token limits; absent fields fall back to the defaults. */
export interface RateLimits {
  readonly rpm?: number;
  readonly rps?: number;
  readonly tpm?: number;
}

/** A budget that resets: at most `limitNano` spent per calendar `period` (PRODUCT.md decision 27). */
export interface BudgetRule {
  readonly period: BudgetPeriod;
  readonly limitNano: number;
}

/** Whose budget a window is: a key's or an account's (`endUser` null), or one end user's of a key. */
export type BudgetOwnerKind = 'key' | 'account';

/** One calendar window of one budget, as a usage row books into it. */
export interface BudgetWindowRef {
  readonly ownerKind: BudgetOwnerKind;
  readonly ownerId: string;
  /** The end user of a key's `end_user_budgets`; null for the key's or account's own budgets. */
  readonly endUser: string | null;
  readonly period: BudgetPeriod;
  /** ISO time the window starts (in the gateway's budget time zone). */
  readonly start: string;
}

/** A calendar window of a key's end-user budgets, the same for each of its end users. */
export type EndUserWindow = Pick<BudgetWindowRef, 'period' | 'start'>;

/** Features an account (or key) may be denied (issue 4, 403 access_denied). */
export interface FeaturePolicy {
  /** false: `stream: true` is refused. Absent: allowed. */
  readonly streaming?: boolean;
  /** The highest reasoning effort allowed. Absent: any. */
  readonly maxReasoningEffort?: ReasoningEffort;
}

/** An account's or key's `request_log` setting: `bodies`, its request records keep request and reply bodies. */
export interface RequestLogSetting {
  readonly bodies: boolean;
}

export interface AccountRecord {
  readonly id: string;
  readonly name: string | null;
  /** Committed balance in nano-USD, as the store holds it. */
  readonly balanceNano: number;
  /** null: every model. */
  readonly allowedModels: readonly string[] | null;
  readonly limits: RateLimits | null;
  readonly policy: FeaturePolicy | null;
  /** null: the request records of its requests keep no bodies (unless the key or model says so). */
  readonly requestLog: RequestLogSetting | null;
  /** Budgets that reset (null: none). */
  readonly budgets: readonly BudgetRule[] | null;
  readonly createdAt: string;
}

/**
 * Who owns a key: `config`, declared in the configuration file (the file decides its
 * fields, and a key gone from the file is blocked); `admin`, made through the admin API or
 * the CLI (the file never touches it).
 */
export type KeySource = 'config' | 'admin';

export interface KeyRecord {
  /** Stable public id (`key_…`); never derived from more than a hash prefix. */
  readonly id: string;
  /** Hex SHA-256 of the secret. */
  readonly hash: string;
  /** The first characters of the secret, for listings and logs. */
  readonly prefix: string;
  readonly accountId: string | null;
  readonly name: string | null;
  readonly status: KeyStatus;
  /** Why the key is not active, when something recorded it (e.g. "removed from the configuration"). */
  readonly statusReason: string | null;
  readonly source: KeySource;
  readonly spendLimitNano: number | null;
  /** Committed spend in nano-USD. */
  readonly spentNano: number;
  readonly limits: RateLimits | null;
  /** null: whatever the account allows. */
  readonly allowedModels: readonly string[] | null;
  readonly policy: FeaturePolicy | null;
  readonly requestLog: RequestLogSetting | null;
  /** Budgets that reset (null: none). */
  readonly budgets: readonly BudgetRule[] | null;
  /** Budgets applied to each end user of the key apart (null: none). */
  readonly endUserBudgets: readonly BudgetRule[] | null;
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
  /** ISO time from which the key is refused (401, "expired"); null: never. */
  readonly expiresAt: string | null;
  /** The secret a rotation replaced, still accepted until `previousExpiresAt`; null: none. */
  readonly previous: PreviousSecret | null;
}

/** The secret a key had before its last rotation: accepted as the key until `expiresAt`. */
export interface PreviousSecret {
  /** Hex SHA-256 of the old secret. */
  readonly hash: string;
  readonly prefix: string;
  /** ISO time the old secret stops working (the rotation's time plus its grace). */
  readonly expiresAt: string;
}

export type LedgerKind = 'initial' | 'topup' | 'adjustment';

/** A change of an account's balance made by an operator (usage is in the usage ledger). */
export interface BalanceEntry {
  readonly id: number;
  readonly accountId: string;
  readonly kind: LedgerKind;
  readonly amountNano: number;
  readonly balanceAfterNano: number;
  readonly reason: string;
  readonly createdAt: string;
}

/** One request that reached a node (issue 4 item 1). */
export interface UsageRow {
  readonly requestId: string;
  readonly correlationId: string;
  readonly keyId: string;
  readonly accountId: string | null;
  /** The model served (prices, spend and stats are by it). */
  readonly model: string;
  /** The id the client sent when it was an alias of `model` (PRODUCT.md decision 25); absent or null: the model's own id. */
  readonly modelRequested?: string | null;
  /** The node that answered last (or was last tried). */
  readonly node: string | null;
  readonly attempts: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly reasoningTokens: number;
  readonly cachedTokens: number;
  /** Prompt tokens written to a prompt cache (part of `promptTokens`, apart from `cachedTokens`). */
  readonly cacheWriteTokens: number;
  /** The part of `cacheWriteTokens` written for one hour (priced at `cache_write_1h`). */
  readonly cacheWrite1hTokens: number;
  readonly costNano: number;
  /** true: tokens counted by the gateway because the node reported none. */
  readonly estimated: boolean;
  readonly status: number;
  readonly errorCode: string | null;
  readonly latencyMs: number;
  readonly firstByteMs: number | null;
  readonly stream: boolean;
  readonly finishReason: string | null;
  /** The client-facing protocol the request came through (`chat`, `messages`, `responses`). */
  readonly frontDoor: string;
  /** Who the client said the request is for (`x-switchyard-user`, `user`, …; at most 128 characters); null: not said. */
  readonly endUser: string | null;
  /** Priced node features the reply used (server-tool calls, the service tier, betas priced); absent or null: none. */
  readonly features?: UsageFeatures | null;
  /** Whether the node the request's affinity key preferred served it (PRODUCT decision 26): `hit`, `spill`, `none`; absent or null: not known (booked before). */
  readonly affinity?: AffinityOutcome | null;
  /**
   * The budget windows the cost books into: those of the request's start, whenever it
   * settles; booked in the same transaction as the row (absent: none).
   */
  readonly budgetWindows?: readonly BudgetWindowRef[] | null;
  readonly createdAt: string;
}

/** The priced node features of a usage row (docs/keys-and-money.md, "Priced node features"). */
export interface UsageFeatures {
  /** Server-tool calls the node reported, by tool (`web_search`: 3). */
  readonly server_tool_calls?: Readonly<Record<string, number>>;
  /** The service tier the node reported serving the request in. */
  readonly service_tier?: string;
  /** Priced betas whose token prices the reply was billed at. */
  readonly betas?: readonly string[];
}

export interface UsageFilter {
  readonly keyId?: string;
  readonly endUser?: string;
  readonly accountId?: string;
  readonly model?: string;
  readonly node?: string;
  readonly requestId?: string;
  /** `ok`: status below 400; `error`: 400 and above; a number: that status exactly. */
  readonly status?: 'ok' | 'error' | number;
  /** ISO time, inclusive. */
  readonly from?: string;
  /** ISO time, exclusive. */
  readonly to?: string;
  /** Rows returned (totals cover every matching row). */
  readonly limit: number;
  /** Also total the matching rows per end user (`UsageReport.endUsers`). */
  readonly groupByEndUser?: boolean;
}

/** Time buckets over the usage ledger (the admin API's stats, the console's charts). */
export interface UsageStatsQuery {
  /** ISO time, inclusive. */
  readonly from: string;
  /** ISO time, exclusive. */
  readonly to: string;
  /** Bucket width; buckets start at multiples of it since the Unix epoch. */
  readonly bucketSeconds: number;
  /** One series per model or per node; absent: one series for everything. */
  readonly groupBy?: 'model' | 'node' | 'end_user';
}

/** One bucket of one series; buckets without rows are absent. */
export interface UsageStatsBucket {
  /** ISO time the bucket starts. */
  readonly start: string;
  /** The model, node or end user (null: the row had none, or no grouping). */
  readonly group: string | null;
  readonly requests: number;
  /** Rows with status 400 or above. */
  readonly errors: number;
  /** Latency percentiles, linear interpolation between ranks (PostgreSQL's percentile_cont). */
  readonly latencyP50Ms: number;
  readonly latencyP95Ms: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly reasoningTokens: number;
  readonly costNano: number;
}

export interface UsageTotals {
  readonly requests: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly reasoningTokens: number;
  readonly cachedTokens: number;
  readonly cacheWriteTokens: number;
  readonly costNano: number;
}

export interface UsageReport {
  /** Newest first. */
  readonly rows: readonly UsageRow[];
  readonly totals: UsageTotals;
  /**
   * With `groupByEndUser`: the totals per end user (null: rows without one), highest cost
   * first, at most MAX_END_USER_GROUPS of them.
   */
  readonly endUsers?: readonly EndUserTotals[];
}

/** Most end users a usage report totals apart (the highest-spending ones). */
export const MAX_END_USER_GROUPS = 1000;

export interface EndUserTotals extends UsageTotals {
  readonly endUser: string | null;
}

/** The committed balance and spend after a usage batch, for the in-process cache. */
export interface SettledBalances {
  readonly accounts: ReadonlyMap<string, number>;
  readonly keys: ReadonlyMap<string, number>;
  /** The committed spend of every budget window the batch booked into, by budgetWindowKey. */
  readonly windows?: ReadonlyMap<string, number>;
}

/** One string per window: the spend-hold subject id and the caches' key. */
export function budgetWindowKey(window: BudgetWindowRef): string {
  return `${window.ownerKind}:${window.ownerId}:${window.period}:${window.start}:${window.endUser ?? ''}`;
}

export interface NewAccount {
  readonly budgets?: readonly BudgetRule[] | null;
  readonly id: string;
  readonly name?: string | null;
  readonly balanceNano: number;
  readonly allowedModels?: readonly string[] | null;
  readonly limits?: RateLimits | null;
  readonly policy?: FeaturePolicy | null;
  readonly requestLog?: RequestLogSetting | null;
}

export interface AccountPatch {
  readonly budgets?: readonly BudgetRule[] | null;
  readonly name?: string | null;
  readonly allowedModels?: readonly string[] | null;
  readonly limits?: RateLimits | null;
  readonly policy?: FeaturePolicy | null;
  readonly requestLog?: RequestLogSetting | null;
}

export interface NewKey {
  readonly budgets?: readonly BudgetRule[] | null;
  readonly endUserBudgets?: readonly BudgetRule[] | null;
  readonly id: string;
  readonly hash: string;
  readonly prefix: string;
  readonly accountId: string | null;
  readonly name?: string | null;
  readonly status?: KeyStatus;
  readonly statusReason?: string | null;
  /** Default `admin`: a key nobody declared in a file is never touched by one. */
  readonly source?: KeySource;
  readonly spendLimitNano?: number | null;
  readonly limits?: RateLimits | null;
  readonly allowedModels?: readonly string[] | null;
  readonly policy?: FeaturePolicy | null;
  readonly requestLog?: RequestLogSetting | null;
  readonly expiresAt?: string | null;
}

export interface KeyPatch {
  readonly budgets?: readonly BudgetRule[] | null;
  readonly endUserBudgets?: readonly BudgetRule[] | null;
  readonly name?: string | null;
  readonly status?: KeyStatus;
  readonly statusReason?: string | null;
  readonly spendLimitNano?: number | null;
  readonly limits?: RateLimits | null;
  readonly allowedModels?: readonly string[] | null;
  readonly policy?: FeaturePolicy | null;
  readonly requestLog?: RequestLogSetting | null;
  readonly expiresAt?: string | null;
}

/** A rotation: the key's new secret, and until when its current one keeps working. */
export interface KeyRotation {
  readonly hash: string;
  readonly prefix: string;
  /** ISO time the current secret stops working. */
  readonly previousExpiresAt: string;
}

export interface KeyFilter {
  readonly prefix?: string;
  readonly accountId?: string;
  readonly source?: KeySource;
  /** Deleted keys are left out unless asked for. */
  readonly includeDeleted?: boolean;
}

/** A model's prices as booked, nano-USD per million tokens. */
export interface ModelPriceRecord {
  readonly id: string;
  readonly inputNano: number;
  readonly outputNano: number;
  readonly cachedInputNano: number | null;
  readonly reasoningNano: number | null;
}

/**
 * A record that changed, so caches (here and on other instances) reload it; `all`: reload
 * everything (changes may have been missed); `hold-wanted`: an instance (`holder`) was
 * short of the subject's budget (`id`, as holdKey gives it) because others hold it;
 * `node` and `instances`: see ClusterChange.
 */
export type StoreChange =
  | { readonly kind: 'key' | 'account' | 'all'; readonly id: string }
  | { readonly kind: 'hold-wanted'; readonly id: string; readonly holder: string }
  | ClusterChange;
