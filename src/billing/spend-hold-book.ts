import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from '../observability/logger.js';
import type { StoreChange } from '../store/records.js';
import {
  holdKey,
  type HoldAmount,
  type HoldDemand,
  type HoldGrant,
  type HoldKind,
  type SpendHoldStore,
} from '../store/spend-holds.js';
import type { AccountCache } from './account-cache.js';

/** A cached key or account as far as holds are concerned. */
export interface HoldingEntry {
  /** The stored record; replaced whenever it is reloaded (an admin change, a usage batch). */
  readonly record: object;
  reservedNano: number;
  pendingNano: number;
  /** What this instance holds of the subject's budget in the store (0: nothing yet). */
  heldNano: number;
}

export interface HoldRequest {
  readonly kind: HoldKind;
  readonly id: string;
  readonly entry: HoldingEntry;
  /** Missing to cover the request now. */
  readonly deficitNano: number;
  /** Asked for beyond the deficit, so the next requests need no round trip. */
  readonly headroomNano: number;
  /** A budget window's subject: which window, and its limit. */
  readonly window?: HoldDemand['window'];
}

/** A subject a request spends on: a key with a spend limit, an account, a budget window. */
export interface HoldSubjectEntry {
  readonly kind: HoldKind;
  readonly id: string;
  readonly entry: HoldingEntry;
  readonly window?: HoldDemand['window'];
}

export interface SpendHoldSettings {
  /** A hold not renewed for this long expires in the store (its instance is presumed gone). */
  readonly ttlMs: number;
  /** How often live holds are renewed. */
  readonly renewMs: number;
  /** A hold unused for this long is given back down to what is in flight. */
  readonly idleMs: number;
  /** After the store failed, requests skip it (and check against the cache) for this long. */
  readonly retryAfterFailureMs: number;
  /** After the store granted less than asked, short requests are refused without asking again for this long. */
  readonly exhaustedMs: number;
  /** Another instance wants budget held here: given back once unused here for this long… */
  readonly wantedIdleMs: number;
  /** …if that happens within this long of its ask. */
  readonly wantedForMs: number;
}

export const DEFAULT_SPEND_HOLD_SETTINGS: SpendHoldSettings = {
  ttlMs: 30_000,
  renewMs: 10_000,
  idleMs: 2_000,
  retryAfterFailureMs: 1_000,
  exhaustedMs: 500,
  wantedIdleMs: 40,
  wantedForMs: 1_000,
};

/** What the entry's hold lacks to cover `estimateNano` more on top of what is in flight (≤ 0: covered). */
export function holdShortfall(entry: HoldingEntry, estimateNano: number): number {
  return entry.reservedNano + entry.pendingNano + estimateNano - entry.heldNano;
}

interface Tracked {
  readonly kind: HoldKind;
  readonly id: string;
  readonly entry: HoldingEntry;
  lastUsedAt: number;
  /** When the store last granted less than asked (the budget is all held or spent)… */
  exhaustedAt: number;
  /** …as long as the record is the same (a raised limit or a top-up reloads it). */
  exhaustedRecord: object | undefined;
  /** When the store last granted less than asked because other instances hold part of the budget. */
  contendedAt: number;
  /** Until when another instance wants budget this one holds (hold-wanted)… */
  wantedUntil: number;
  /** …and whether this instance is waiting to give it back. */
  answeringWant: boolean;
  /** Requests waiting on an ask for more of it: the subject is in use until it is answered. */
  asking: number;
  /** A budget window: which, and its limit as last asked with. */
  window: HoldDemand['window'];
}

interface Batch {
  readonly demands: Map<string, { tracked: Tracked; deficitNano: number; headroomNano: number; requests: number }>;
  readonly done: Promise<void>;
  settle(error?: unknown): void;
}

/**
 * This instance's side of the spend holds (see store/spend-holds.ts): what it holds of
 * each key's limit and account's balance, mirrored on the cached entries. Requests that
 * find their hold short ask for more; asks made while one is in flight are gathered into
 * the next, one transaction for all of them. Holds are renewed while the process lives,
 * given back when idle, and released at shutdown. Every store call runs in the cache's
 * serial queue, after the usage batches that take booked costs out of the holds, so the
 * mirror always matches the store.
 */
export class SpendHoldBook {
  readonly holder = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly tracked = new Map<string, Tracked>();
  private next: Batch | undefined;
  private running: Promise<void> = Promise.resolve();
  private failedAt = Number.NEGATIVE_INFINITY;
  private lastRenewAt = Date.now();
  private readonly timer: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly store: SpendHoldStore,
    private readonly cache: AccountCache,
    private readonly logger: Logger,
    private readonly settings: SpendHoldSettings = DEFAULT_SPEND_HOLD_SETTINGS,
  ) {
    this.timer = setInterval(() => void this.maintain(), Math.min(settings.idleMs, settings.renewMs) / 2);
    this.timer.unref();
  }

  /** false while the store recently failed: callers check against the cache alone. */
  get reachable(): boolean {
    return performance.now() - this.failedAt >= this.settings.retryAfterFailureMs;
  }

  /** Whether the store said lately that the subject's budget is used up (no point asking again yet). */
  exhausted(kind: HoldKind, id: string): boolean {
    const tracked = this.tracked.get(holdKey({ kind, id }));
    return (
      tracked !== undefined &&
      tracked.exhaustedRecord === tracked.entry.record &&
      performance.now() - tracked.exhaustedAt < this.settings.exhaustedMs
    );
  }

  /** Whether the store's last answer was short because other instances hold the budget (they were asked to give back). */
  contended(kind: HoldKind, id: string): boolean {
    const tracked = this.tracked.get(holdKey({ kind, id }));
    return tracked !== undefined && performance.now() - tracked.contendedAt < this.settings.exhaustedMs;
  }

  /**
   * Another instance is short of a budget this one holds: what is not in flight is given
   * back as soon as this instance has not used the subject for `wantedIdleMs` (within
   * `wantedForMs`). An instance busy with the subject keeps its hold, so two busy instances
   * never hand the same budget to and fro while refusing requests on both sides.
   */
  onStoreChange(change: StoreChange): void {
    if (change.kind !== 'hold-wanted' || change.holder === this.holder) return;
    const tracked = this.tracked.get(change.id);
    if (tracked === undefined) return;
    tracked.wantedUntil = performance.now() + this.settings.wantedForMs;
    if (tracked.answeringWant) return;
    tracked.answeringWant = true;
    this.giveBackWhenIdle(tracked);
  }

  private giveBackWhenIdle(tracked: Tracked): void {
    const now = performance.now();
    if (now > tracked.wantedUntil || this.closed) {
      tracked.answeringWant = false;
      return;
    }
    const idleFor = now - tracked.lastUsedAt;
    if (idleFor < this.settings.wantedIdleMs) {
      setTimeout(() => this.giveBackWhenIdle(tracked), this.settings.wantedIdleMs - idleFor).unref();
      return;
    }
    const wantedUntil = tracked.wantedUntil;
    void this.giveBack([tracked], this.settings.wantedIdleMs).then((kept) => {
      // Done unless wanted again while giving back, or kept (used meanwhile, or the store failed): then tried again.
      if (kept.length > 0) setTimeout(() => this.giveBackWhenIdle(tracked), this.settings.wantedIdleMs).unref();
      else if (tracked.wantedUntil !== wantedUntil) this.giveBackWhenIdle(tracked);
      else tracked.answeringWant = false;
    });
  }

  /**
   * Lowers the holds of subjects still idle for `idleMs` to what is in flight; resolves to
   * the subjects not given back: used meanwhile (an ask answered while the give back waited
   * in the queue counts as a use: its requests are about to reserve), or the store failed.
   * The mirror is lowered first, in the serial queue, so a request arriving while the store
   * works can never reserve budget being given back (it finds the hold short and asks,
   * after this).
   */
  private async giveBack(subjects: readonly Tracked[], idleMs: number): Promise<Tracked[]> {
    const kept: Tracked[] = [];
    await this.cache.serialize(async () => {
      const now = performance.now();
      const targets: HoldAmount[] = [];
      const lowered: Array<{ tracked: Tracked; heldNano: number }> = [];
      for (const tracked of subjects) {
        if (tracked.asking > 0 || now - tracked.lastUsedAt < idleMs) {
          kept.push(tracked);
          continue;
        }
        const inUse = tracked.entry.reservedNano + tracked.entry.pendingNano;
        if (tracked.entry.heldNano <= inUse) continue;
        lowered.push({ tracked, heldNano: tracked.entry.heldNano });
        tracked.entry.heldNano = inUse;
        // What this instance gives back is free in the store again: its requests ask anew.
        tracked.exhaustedAt = Number.NEGATIVE_INFINITY;
        targets.push({ kind: tracked.kind, id: tracked.id, heldNano: inUse });
      }
      if (targets.length === 0) return;
      try {
        // A hold the store no longer has (expired) is 0 here too.
        const left = new Map(
          (await this.store.shrink(this.holder, targets)).map((amount) => [holdKey(amount), amount.heldNano]),
        );
        this.mirror(
          targets.map((amount) => ({ ...amount, heldNano: left.get(holdKey(amount)) ?? 0 })),
          false,
        );
      } catch (error) {
        // The store still has the larger holds (the transaction failed): mirror them again,
        // so a later give back sends the shrink again instead of finding nothing to give.
        for (const { tracked, heldNano } of lowered) tracked.entry.heldNano = heldNano;
        kept.push(...lowered.map(({ tracked }) => tracked));
        this.failedAt = performance.now();
        this.logger.warn({ err: error }, 'spend holds: giving back holds failed; retrying');
      }
    });
    return kept;
  }

  /** Whether the holds of every subject cover `estimateNano` more: no store needed. */
  covers(subjects: readonly HoldSubjectEntry[], estimateNano: number): boolean {
    for (const subject of subjects) if (holdShortfall(subject.entry, estimateNano) > 0) return false;
    return true;
  }

  /** Marks the subjects as in use. */
  touchAll(subjects: readonly HoldSubjectEntry[]): void {
    for (const subject of subjects) this.touch(subject.kind, subject.id, subject.entry);
  }

  /** Marks the subjects as in use (not idle). */
  touch(kind: HoldKind, id: string, entry: HoldingEntry): void {
    this.track(kind, id, entry).lastUsedAt = performance.now();
  }

  /** Asks the store for more of each subject's budget; resolves once the answer is mirrored. Rejects when the store fails. */
  cover(requests: readonly HoldRequest[]): Promise<void> {
    const batch = (this.next ??= this.startBatch());
    for (const request of requests) {
      const tracked = this.track(request.kind, request.id, request.entry);
      if (request.window !== undefined) tracked.window = request.window;
      tracked.lastUsedAt = performance.now();
      tracked.asking++;
      const demand = batch.demands.get(holdKey(request));
      if (demand === undefined)
        batch.demands.set(holdKey(request), {
          tracked,
          deficitNano: request.deficitNano,
          headroomNano: request.headroomNano,
          requests: 1,
        });
      else {
        demand.deficitNano += request.deficitNano;
        demand.headroomNano = Math.max(demand.headroomNano, request.headroomNano);
        demand.requests++;
      }
    }
    return batch.done;
  }

  private track(kind: HoldKind, id: string, entry: HoldingEntry): Tracked {
    const key = holdKey({ kind, id });
    let tracked = this.tracked.get(key);
    if (tracked === undefined || tracked.entry !== entry) {
      tracked = {
        kind,
        id,
        entry,
        lastUsedAt: performance.now(),
        exhaustedAt: Number.NEGATIVE_INFINITY,
        exhaustedRecord: undefined,
        contendedAt: Number.NEGATIVE_INFINITY,
        wantedUntil: Number.NEGATIVE_INFINITY,
        answeringWant: false,
        asking: 0,
        window: undefined,
      };
      this.tracked.set(key, tracked);
    }
    return tracked;
  }

  private startBatch(): Batch {
    let settle: (error?: unknown) => void = () => undefined;
    const done = new Promise<void>(
      (resolve, reject) => (settle = (error) => (error === undefined ? resolve() : reject(error))),
    );
    done.catch(() => undefined);
    const batch: Batch = { demands: new Map(), done, settle: (error) => settle(error) };
    // The batch gathers asks until the previous one is answered.
    this.running = this.running.then(() => this.acquire(batch));
    return batch;
  }

  private async acquire(batch: Batch): Promise<void> {
    if (this.next === batch) this.next = undefined;
    const demands: HoldDemand[] = [...batch.demands.values()].map(({ tracked, deficitNano, headroomNano }) => ({
      kind: tracked.kind,
      id: tracked.id,
      wantNano: deficitNano + headroomNano,
      ...(tracked.window === undefined ? {} : { window: tracked.window }),
    }));
    try {
      const held = await this.cache.serialize(async () => {
        const before = new Map([...batch.demands].map(([key, { tracked }]) => [key, tracked.entry.heldNano]));
        let grants: HoldGrant[];
        try {
          grants = await this.store.acquire(this.holder, demands, this.settings.ttlMs);
        } finally {
          // Answered (or failed): from here on its requests' use is what marks it (lastUsedAt).
          for (const { tracked, requests } of batch.demands.values()) tracked.asking -= requests;
        }
        this.mirror(grants, false);
        const now = performance.now();
        for (const grant of grants) {
          const key = holdKey(grant);
          const tracked = this.tracked.get(key);
          const wanted = batch.demands.get(key);
          if (tracked === undefined || wanted === undefined) continue;
          // Its requests are about to reserve: the subject is in use (see giveBack).
          tracked.lastUsedAt = now;
          if (grant.contended) tracked.contendedAt = now;
          else if (grant.heldNano < (before.get(key) ?? 0) + wanted.deficitNano + wanted.headroomNano) {
            tracked.exhaustedAt = now;
            tracked.exhaustedRecord = tracked.entry.record;
          }
        }
        return grants;
      });
      if (!this.reachable) this.logger.info({ holds: held.length }, 'spend holds: the store answers again');
      this.failedAt = Number.NEGATIVE_INFINITY;
      batch.settle();
    } catch (error) {
      if (this.reachable)
        this.logger.error(
          { err: error },
          "spend holds: the store is unreachable; checking spend against this instance's cache until it answers",
        );
      this.failedAt = performance.now();
      batch.settle(error);
    }
  }

  /** Sets the mirrored holds; with `complete`, subjects missing from `amounts` hold nothing. */
  private mirror(amounts: readonly HoldAmount[], complete: boolean): void {
    const seen = new Set<string>();
    for (const amount of amounts) {
      const key = holdKey(amount);
      seen.add(key);
      const tracked = this.tracked.get(key);
      if (tracked !== undefined) tracked.entry.heldNano = amount.heldNano;
    }
    if (!complete) return;
    for (const [key, tracked] of this.tracked) {
      if (seen.has(key)) continue;
      tracked.entry.heldNano = 0;
      if (tracked.entry.reservedNano === 0 && tracked.entry.pendingNano === 0) this.tracked.delete(key);
    }
  }

  /** Gives back idle holds and renews live ones; runs on a timer. */
  private async maintain(): Promise<void> {
    if (this.tracked.size === 0 || !this.reachable) return;
    const now = performance.now();
    const idle = [...this.tracked.values()].filter(
      (tracked) =>
        now - tracked.lastUsedAt >= this.settings.idleMs &&
        tracked.entry.heldNano > tracked.entry.reservedNano + tracked.entry.pendingNano,
    );
    if (idle.length > 0) await this.giveBack(idle, this.settings.idleMs);
    if (Date.now() - this.lastRenewAt < this.settings.renewMs) return;
    try {
      await this.cache.serialize(async () =>
        this.mirror(await this.store.renew(this.holder, this.settings.ttlMs), true),
      );
      this.lastRenewAt = Date.now();
    } catch (error) {
      this.failedAt = performance.now();
      this.logger.warn({ err: error }, 'spend holds: renewing holds failed; retrying');
    }
  }

  /** Gives every hold back (after the last usage batch was written). */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.running;
    await this.cache
      .serialize(() => this.store.releaseAll(this.holder))
      .catch((error: unknown) => {
        this.logger.warn({ err: error }, 'spend holds could not be released; they expire by themselves');
      });
  }
}
