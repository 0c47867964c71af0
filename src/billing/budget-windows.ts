import type { BudgetWindowSettings } from '../config/gateway-config.js';
import {
  budgetWindowKey,
  type BudgetRule,
  type BudgetWindowRef,
  type EndUserWindow,
  type SettledBalances,
  type UsageRow,
} from '../store/records.js';
import type { Store } from '../store/store.js';
import { CalendarWindows, type CalendarWindow } from '../time/calendar-window.js';
import type { HoldingEntry } from './spend-hold-book.js';

/** One budget window as the hot path sees it: its limit, committed spend and this instance's money in flight. */
export interface WindowEntry extends HoldingEntry {
  readonly ref: BudgetWindowRef;
  /** budgetWindowKey(ref): the spend-hold subject id. */
  readonly id: string;
  /** Epoch ms the window ends (its reset). */
  readonly end: number;
  /** The limit as the owner's record has it now; a new `record` object when it changes. */
  limitNano: number;
  record: { readonly limitNano: number };
  /** Committed spend of the window, as this instance last read or booked it. */
  spentNano: number;
}

/** A window a request falls in, and the budget's limit. */
export interface WindowDemand {
  readonly ref: BudgetWindowRef;
  readonly id: string;
  readonly end: number;
  readonly limitNano: number;
}

/** The window of `budget` of an owner (and end user) that `window` of the calendar is. */
export function windowDemand(
  kind: 'key' | 'account',
  id: string,
  endUser: string | null,
  budget: BudgetRule,
  window: CalendarWindow,
): WindowDemand {
  const ref: BudgetWindowRef = {
    ownerKind: kind,
    ownerId: id,
    endUser,
    period: budget.period,
    start: new Date(window.start).toISOString(),
  };
  return { ref, id: budgetWindowKey(ref), end: window.end, limitNano: budget.limitNano };
}

/** The owner whose budgets a request's windows come from. */
export interface BudgetOwner {
  readonly kind: 'key' | 'account';
  readonly id: string;
  readonly budgets: readonly BudgetRule[] | null;
}

/**
 * The budget windows (PRODUCT.md decision 27) this instance knows, in memory: per window
 * the committed spend (read from the store the first time a window is used, then kept up
 * to date by this instance's usage batches), the reservations in flight, the settled costs
 * not committed yet and the spend hold (shared stores). At most `cachedWindows` are kept:
 * beyond, idle ones (nothing in flight, nothing held) are dropped, least recently used first,
 * and read again from the store when used again.
 */
export class BudgetWindowBook {
  private readonly entries = new Map<string, WindowEntry>();
  private readonly loading = new Map<string, Promise<void>>();
  private readonly calendar = new CalendarWindows();
  private settings: BudgetWindowSettings = { timeZone: 'UTC', cachedWindows: 10_000 };

  constructor(
    private readonly store: Store,
    /** Runs store work in the account cache's serial queue, after the batches before it. */
    private readonly serialize: <T>(work: () => Promise<T>) => Promise<T>,
  ) {}

  configure(settings: BudgetWindowSettings): void {
    this.settings = settings;
  }

  get timeZone(): string {
    return this.settings.timeZone;
  }

  /** The windows a request started at `epochMs` falls in: its key's, its account's, and its end user's of the key. */
  demandsOf(
    owners: readonly BudgetOwner[],
    endUser: { readonly keyId: string; readonly name: string; readonly budgets: readonly BudgetRule[] } | undefined,
    epochMs: number,
  ): WindowDemand[] {
    const demands: WindowDemand[] = [];
    const add = (kind: 'key' | 'account', id: string, user: string | null, budget: BudgetRule) =>
      demands.push(
        windowDemand(kind, id, user, budget, this.calendar.of(budget.period, epochMs, this.settings.timeZone)),
      );
    for (const owner of owners) for (const budget of owner.budgets ?? []) add(owner.kind, owner.id, null, budget);
    if (endUser !== undefined) for (const budget of endUser.budgets) add('key', endUser.keyId, endUser.name, budget);
    return demands;
  }

  /** The entries of the demanded windows; a promise only when some must first be read from the store. */
  entriesOf(demands: readonly WindowDemand[]): WindowEntry[] | Promise<WindowEntry[]> {
    const missing = demands.filter((demand) => !this.entries.has(demand.id));
    if (missing.length === 0) return demands.map((demand) => this.use(demand));
    return this.load(missing).then(() => demands.map((demand) => this.use(demand)));
  }

  /** The window's entry, marked as the most recently used, with the limit brought up to date. */
  private use(demand: WindowDemand): WindowEntry {
    let entry = this.entries.get(demand.id);
    if (entry === undefined) {
      // Never: a window read is kept until used (evict makes room before it adds).
      entry = this.fresh(demand, 0);
      this.entries.set(demand.id, entry);
    } else {
      this.entries.delete(demand.id);
      this.entries.set(demand.id, entry);
    }
    if (entry.limitNano !== demand.limitNano) {
      entry.limitNano = demand.limitNano;
      entry.record = { limitNano: demand.limitNano };
    }
    return entry;
  }

  private fresh(demand: WindowDemand, spentNano: number): WindowEntry {
    return {
      ref: demand.ref,
      id: demand.id,
      end: demand.end,
      limitNano: demand.limitNano,
      record: { limitNano: demand.limitNano },
      spentNano,
      reservedNano: 0,
      pendingNano: 0,
      heldNano: 0,
    };
  }

  private load(demands: readonly WindowDemand[]): Promise<void> {
    const waits: Promise<void>[] = [];
    const read: WindowDemand[] = [];
    for (const demand of demands) {
      const pending = this.loading.get(demand.id);
      if (pending !== undefined) waits.push(pending);
      else read.push(demand);
    }
    if (read.length > 0) {
      const loaded = this.serialize(() => this.store.windowSpend(read.map((demand) => demand.ref))).then((spent) => {
        // Room is made first: the windows just read are used next, never dropped before.
        this.evict(read.length);
        for (const demand of read)
          if (!this.entries.has(demand.id)) this.entries.set(demand.id, this.fresh(demand, spent.get(demand.id) ?? 0));
      });
      const done = loaded.finally(() => {
        for (const demand of read) this.loading.delete(demand.id);
      });
      for (const demand of read) this.loading.set(demand.id, done);
      waits.push(done);
    }
    return Promise.all(waits).then(() => undefined);
  }

  /** Drops idle windows so that `coming` more fit under the cap, least recently used first. */
  private evict(coming: number): void {
    let over = this.entries.size + coming - this.settings.cachedWindows;
    if (over <= 0) return;
    for (const [id, entry] of this.entries) {
      if (over <= 0) break;
      if (entry.reservedNano !== 0 || entry.pendingNano !== 0 || entry.heldNano !== 0) continue;
      this.entries.delete(id);
      over--;
    }
  }

  /** The end users of a key with money in flight here (reserved, or settled and not committed) in one of `windows`. */
  endUsersInFlight(keyId: string, windows: readonly EndUserWindow[]): string[] {
    const current = new Set(windows.map((window) => `${window.period}:${window.start}`));
    const users = new Set<string>();
    for (const { ref, reservedNano, pendingNano } of this.entries.values())
      if (
        ref.ownerKind === 'key' &&
        ref.ownerId === keyId &&
        ref.endUser !== null &&
        (reservedNano > 0 || pendingNano > 0) &&
        current.has(`${ref.period}:${ref.start}`)
      )
        users.add(ref.endUser);
    return [...users];
  }

  /** The window's entry if this instance has it. */
  entry(id: string): WindowEntry | undefined {
    return this.entries.get(id);
  }

  /** A usage batch was committed: its costs move from pending into the windows' committed spend. */
  committed(rows: readonly UsageRow[], settled: SettledBalances): void {
    for (const row of rows)
      for (const ref of row.budgetWindows ?? []) {
        const entry = this.entries.get(budgetWindowKey(ref));
        if (entry === undefined) continue;
        entry.pendingNano -= row.costNano;
        entry.heldNano = Math.max(0, entry.heldNano - row.costNano);
      }
    for (const [id, spentNano] of settled.windows ?? []) {
      const entry = this.entries.get(id);
      if (entry !== undefined) entry.spentNano = spentNano;
    }
  }
}
