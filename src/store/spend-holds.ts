/**
 * Spend holds: the budget one gateway instance may spend on a key's limit or an account's
 * balance without asking the store again. The store grants a hold only out of what no
 * other instance holds (spent + every live hold ≤ limit; every live hold ≤ balance), and
 * every usage batch takes its booked cost out of the booking instance's hold in the same
 * transaction, so instances sharing one store can never spend the same money twice. A
 * A budget window's hold is granted out of its limit − its spend − every other live hold
 * of it, under the lock of its owner's row (which every usage batch booking into it takes).
 * hold that is not renewed expires (its instance is gone) and its budget is free again.
 */
import type { BudgetWindowRef } from './records.js';

export type HoldKind = 'key' | 'account' | 'window';

export interface HoldSubject {
  readonly kind: HoldKind;
  readonly id: string;
}

export interface HoldDemand extends HoldSubject {
  /** How much more this instance asks to hold. */
  readonly wantNano: number;
  /** A budget window (kind `window`, id its budgetWindowKey): which, and its limit; its budget is limit − spent in it. */
  readonly window?: { readonly ref: BudgetWindowRef; readonly limitNano: number };
}

export interface HoldAmount extends HoldSubject {
  /** What this instance holds now, after the call. */
  readonly heldNano: number;
}

export interface HoldGrant extends HoldAmount {
  /** Less was granted than asked while other instances hold part of the budget (they are told: `hold-wanted`). */
  readonly contended: boolean;
}

export interface SpendHoldStore {
  /** Grants each demand as far as the free budget allows (all or part or nothing), in one transaction. */
  acquire(holder: string, demands: readonly HoldDemand[], ttlMs: number): Promise<HoldGrant[]>;
  /** Extends the holder's live holds; returns them (an expired hold is gone: not returned). */
  renew(holder: string, ttlMs: number): Promise<HoldAmount[]>;
  /** Lowers the holder's holds to the amounts given (0 deletes); returns them as they are now. */
  shrink(holder: string, targets: readonly HoldAmount[]): Promise<HoldAmount[]>;
  /** Drops every hold of the holder (clean shutdown). */
  releaseAll(holder: string): Promise<void>;
}

export const holdKey = (subject: HoldSubject): string => `${subject.kind}:${subject.id}`;
