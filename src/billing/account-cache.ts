import type { KeyLookup, Principal } from '../auth/key-registry.js';
import type { AccountRecord, KeyRecord, SettledBalances, StoreChange, UsageRow } from '../store/records.js';
import type { Store } from '../store/store.js';
import { BudgetWindowBook } from './budget-windows.js';

/** A key as the hot path sees it: the stored record plus this instance's in-flight money. */
export interface CachedKey {
  record: KeyRecord;
  principal: Principal;
  /** Estimates of requests in flight, not yet settled. */
  reservedNano: number;
  /** Settled costs not yet committed to the store. */
  pendingNano: number;
  /** This instance's spend hold on the key's limit (shared stores only; see SpendHoldBook). */
  heldNano: number;
}

export interface CachedAccount {
  record: AccountRecord;
  reservedNano: number;
  pendingNano: number;
  /** This instance's spend hold on the balance (shared stores only). */
  heldNano: number;
}

/**
 * Keys and accounts served from memory: the request path never waits for the store. Loaded
 * at start, reloaded record by record when the store reports a change (admin API, CLI,
 * other instances), and told the committed balances after every usage batch. Store reads
 * and batch commits run one at a time so a reload never overtakes a commit.
 */
export class AccountCache implements KeyLookup {
  /** Every secret's hash → the principal it authenticates (a rotated key has two). */
  private readonly byHash = new Map<string, Principal>();
  private readonly keys = new Map<string, CachedKey>();
  private readonly accounts = new Map<string, CachedAccount>();
  private serial: Promise<unknown> = Promise.resolve();
  /** The budget windows of the keys and accounts (and of keys' end users). */
  readonly windows: BudgetWindowBook;

  constructor(private readonly store: Store) {
    this.windows = new BudgetWindowBook(store, (work) => this.serialize(work));
    store.onChange((change) => void this.reload(change).catch(() => undefined));
  }

  /** Loads every account and key; keys gone from the store (deleted) leave the cache. */
  async load(): Promise<void> {
    const { accounts, keys } = await this.store.loadAll();
    for (const account of accounts) this.putAccount(account);
    const present = new Set(keys.map((key) => key.id));
    for (const id of [...this.keys.keys()]) if (!present.has(id)) this.dropKey(id);
    for (const key of keys) this.putKey(key);
  }

  findHashed(hashHex: string): Principal | undefined {
    return this.byHash.get(hashHex);
  }

  key(id: string): CachedKey | undefined {
    return this.keys.get(id);
  }

  account(id: string | null | undefined): CachedAccount | undefined {
    return id === null || id === undefined ? undefined : this.accounts.get(id);
  }

  /** Runs store work after every earlier piece of it (reloads, commits). */
  serialize<T>(work: () => Promise<T>): Promise<T> {
    const result = this.serial.then(work);
    this.serial = result.catch(() => undefined);
    return result;
  }

  /** Reloads one record from the store. */
  reload(change: StoreChange): Promise<void> {
    if (change.kind === 'hold-wanted') return Promise.resolve();
    return this.serialize(async () => {
      if (change.kind === 'all') {
        await this.load();
      } else if (change.kind === 'account') {
        const account = await this.store.getAccount(change.id);
        if (account !== undefined) this.putAccount(account);
      } else if (change.kind === 'key') {
        const key = await this.store.getKey(change.id);
        if (key === undefined || key.status === 'deleted') this.dropKey(change.id);
        else this.putKey(key);
      }
    });
  }

  /** A usage batch was committed: its costs move from pending into the committed figures. */
  committed(rows: readonly UsageRow[], settled: SettledBalances): void {
    this.windows.committed(rows, settled);
    for (const row of rows) {
      // The batch took each cost out of this instance's holds too (Store.recordUsage with a holder).
      const key = this.keys.get(row.keyId);
      if (key !== undefined) {
        key.pendingNano -= row.costNano;
        key.heldNano = Math.max(0, key.heldNano - row.costNano);
      }
      const account = this.account(row.accountId);
      if (account !== undefined) {
        account.pendingNano -= row.costNano;
        account.heldNano = Math.max(0, account.heldNano - row.costNano);
      }
    }
    for (const [id, balanceNano] of settled.accounts) {
      const account = this.accounts.get(id);
      if (account !== undefined) account.record = { ...account.record, balanceNano };
    }
    for (const [id, spentNano] of settled.keys) {
      const key = this.keys.get(id);
      if (key !== undefined) key.record = { ...key.record, spentNano };
    }
  }

  private putAccount(record: AccountRecord): void {
    const existing = this.accounts.get(record.id);
    if (existing !== undefined) existing.record = record;
    else this.accounts.set(record.id, { record, reservedNano: 0, pendingNano: 0, heldNano: 0 });
  }

  /**
   * Puts a key's record in, with a principal for its secret and one for the secret a
   * rotation replaced (the hashes it had before are dropped, so a rotation on any instance
   * reaches this one through its change notification).
   */
  private putKey(record: KeyRecord): void {
    const keyExpiresAtMs = record.expiresAt === null ? Infinity : Date.parse(record.expiresAt);
    const principalOf = (prefix: string, graceEndsAtMs: number): Principal => ({
      keyId: record.id,
      keyPrefix: prefix,
      accountId: record.accountId ?? undefined,
      status: record.status,
      expiresAtMs: Math.min(keyExpiresAtMs, graceEndsAtMs),
      expiry: graceEndsAtMs < keyExpiresAtMs ? 'replaced' : 'expired',
    });
    const principal = principalOf(record.prefix, Infinity);
    const previousPrincipal =
      record.previous === null ? undefined : principalOf(record.previous.prefix, Date.parse(record.previous.expiresAt));
    const existing = this.keys.get(record.id);
    if (existing !== undefined) {
      this.forgetSecrets(existing.record);
      existing.record = record;
      existing.principal = principal;
    } else {
      this.keys.set(record.id, { record, principal, reservedNano: 0, pendingNano: 0, heldNano: 0 });
    }
    this.byHash.set(record.hash, principal);
    if (record.previous !== null && previousPrincipal !== undefined)
      this.byHash.set(record.previous.hash, previousPrincipal);
  }

  private forgetSecrets(record: KeyRecord): void {
    // Only this key's own entries: a hash is never shared between keys.
    if (this.byHash.get(record.hash)?.keyId === record.id) this.byHash.delete(record.hash);
    if (record.previous !== null && this.byHash.get(record.previous.hash)?.keyId === record.id)
      this.byHash.delete(record.previous.hash);
  }

  private dropKey(id: string): void {
    const entry = this.keys.get(id);
    if (entry === undefined) return;
    this.keys.delete(id);
    this.forgetSecrets(entry.record);
  }
}
