import type { AccountCache } from '../billing/account-cache.js';
import { windowDemand, type WindowDemand } from '../billing/budget-windows.js';
import { nanoToUsd } from '../billing/money.js';
import type { BudgetRule } from '../store/records.js';
import type { Store } from '../store/store.js';
import { calendarWindow } from '../time/calendar-window.js';

/** Where budget windows are read: the store, this gateway's cache (money in flight), the zone and the clock. */
export interface BudgetViewSource {
  readonly store: Store;
  readonly cache: AccountCache | undefined;
  readonly timeZone: string;
  readonly clock: () => number;
}

export interface BudgetOwnerView {
  readonly kind: 'key' | 'account';
  readonly id: string;
  readonly budgets: readonly BudgetRule[] | null;
}

/** One budget's current window as the admin API shows it (USD). */
export interface BudgetWindowView {
  readonly period: string;
  readonly limit: number;
  readonly spent: number;
  readonly reserved: number;
  readonly remaining: number;
  readonly window_start: string;
  readonly resets_at: string;
}

const ownerKey = (kind: string, id: string) => `${kind}:${id}`;

/**
 * The current window of every budget of the owners, with its spend (committed, plus what
 * this gateway settled and has not written yet), its reservations in flight here and what
 * remains: one store read for all of them.
 */
export async function budgetViews(
  source: BudgetViewSource,
  owners: readonly BudgetOwnerView[],
): Promise<Map<string, BudgetWindowView[]>> {
  const now = source.clock();
  const demands: Array<{ owner: string; demand: WindowDemand }> = [];
  for (const owner of owners)
    for (const budget of owner.budgets ?? [])
      demands.push({
        owner: ownerKey(owner.kind, owner.id),
        demand: windowDemand(owner.kind, owner.id, null, budget, calendarWindow(budget.period, now, source.timeZone)),
      });
  const views = new Map<string, BudgetWindowView[]>(owners.map((owner) => [ownerKey(owner.kind, owner.id), []]));
  if (demands.length === 0) return views;
  const spent = await source.store.windowSpend(demands.map(({ demand }) => demand.ref));
  for (const { owner, demand } of demands) {
    const cached = source.cache?.windows.entry(demand.id);
    const spentNano = (spent.get(demand.id) ?? 0) + (cached?.pendingNano ?? 0);
    const reservedNano = cached?.reservedNano ?? 0;
    views.get(owner)?.push({
      period: demand.ref.period,
      limit: nanoToUsd(demand.limitNano),
      spent: nanoToUsd(spentNano),
      reserved: nanoToUsd(reservedNano),
      remaining: nanoToUsd(Math.max(0, demand.limitNano - spentNano - reservedNano)),
      window_start: demand.ref.start,
      resets_at: new Date(demand.end).toISOString(),
    });
  }
  return views;
}

export function budgetsOfOwner(views: ReadonlyMap<string, BudgetWindowView[]>, kind: 'key' | 'account', id: string) {
  return views.get(ownerKey(kind, id)) ?? [];
}

/** Budgets as the admin API shows them in USD (end users' budgets: only the rule; each end user has its own windows). */
export function budgetRulesView(budgets: readonly BudgetRule[] | null) {
  return budgets === null
    ? null
    : budgets.map((budget) => ({ period: budget.period, limit: nanoToUsd(budget.limitNano) }));
}
