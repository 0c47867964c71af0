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
  /** One end user of the key, whose windows of the key's `end_user_budgets` these are. */
  readonly endUser?: string;
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

const ownerKey = (kind: string, id: string, endUser?: string) =>
  endUser === undefined ? `${kind}:${id}` : `${kind}:${id}:${endUser}`;

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
        owner: ownerKey(owner.kind, owner.id, owner.endUser),
        demand: windowDemand(
          owner.kind,
          owner.id,
          owner.endUser ?? null,
          budget,
          calendarWindow(budget.period, now, source.timeZone),
        ),
      });
  const views = new Map<string, BudgetWindowView[]>(
    owners.map((owner) => [ownerKey(owner.kind, owner.id, owner.endUser), []]),
  );
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

/** One end user of a key and the current windows of the key's `end_user_budgets` for it. */
export interface EndUserWindowsView {
  readonly end_user: string;
  readonly windows: BudgetWindowView[];
}

/**
 * The end users of a key that spent in a current window of its `end_user_budgets` (or have
 * money in flight on this gateway there), each with its windows, the highest spend in one
 * window first, at most `limit`.
 */
export async function endUserBudgetViews(
  source: BudgetViewSource,
  key: { readonly id: string; readonly endUserBudgets: readonly BudgetRule[] | null },
  limit: number,
): Promise<EndUserWindowsView[]> {
  const budgets = key.endUserBudgets ?? [];
  if (budgets.length === 0 || limit <= 0) return [];
  const now = source.clock();
  const windows = budgets.map((budget) => ({
    period: budget.period,
    start: new Date(calendarWindow(budget.period, now, source.timeZone).start).toISOString(),
  }));
  const users = new Set(await source.store.endUsersWithSpend(key.id, windows, limit));
  for (const user of source.cache?.windows.endUsersInFlight(key.id, windows) ?? []) users.add(user);
  const owners = [...users].map((endUser) => ({ kind: 'key' as const, id: key.id, endUser, budgets }));
  const views = await budgetViews(source, owners);
  const top = (windows: readonly BudgetWindowView[]) => Math.max(0, ...windows.map((window) => window.spent));
  return owners
    .map((owner) => ({ end_user: owner.endUser, windows: views.get(ownerKey('key', key.id, owner.endUser)) ?? [] }))
    .sort((a, b) => top(b.windows) - top(a.windows) || (a.end_user < b.end_user ? -1 : 1))
    .slice(0, limit);
}

/** Budgets as the admin API shows them in USD (end users' budgets: only the rule; each end user has its own windows). */
export function budgetRulesView(budgets: readonly BudgetRule[] | null) {
  return budgets === null
    ? null
    : budgets.map((budget) => ({ period: budget.period, limit: nanoToUsd(budget.limitNano) }));
}
