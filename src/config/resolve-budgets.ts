import { ConfigError } from './config-error.js';
import type { BudgetsFile } from './config-schema.js';
import type { BudgetConfig } from './gateway-config.js';

/** Budgets as given; one per period (two monthly budgets of one owner would be one budget, the lower). */
export function resolveBudgets(
  budgets: BudgetsFile | undefined,
  path: string,
  source: string,
): BudgetConfig[] | undefined {
  if (budgets === undefined) return undefined;
  const seen = new Set<string>();
  budgets.forEach((budget, index) => {
    if (seen.has(budget.period))
      throw new ConfigError(
        source,
        `${path}[${index}].period`,
        `a second "${budget.period}" budget: give one per period`,
      );
    seen.add(budget.period);
  });
  return budgets.map((budget) => ({ limit: budget.limit, period: budget.period }));
}
