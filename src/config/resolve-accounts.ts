import { checkAllowedModels } from './check-allowed-models.js';
import type { ConfigFile } from './config-schema.js';
import type { AccountConfig } from './gateway-config.js';
import { resolveBudgets } from './resolve-budgets.js';
import { resolvePolicy } from './resolve-policy.js';
import { resolveRateLimits } from './resolve-rate-limits.js';

/** The accounts with defaults, each allowed only models the file declares. */
export function resolveAccounts(
  file: ConfigFile['accounts'],
  modelIds: ReadonlySet<string>,
  source: string,
): AccountConfig[] {
  return (file ?? []).map((account, index) => {
    checkAllowedModels(account.allowed_models, modelIds, `accounts[${index}].allowed_models`, source);
    return {
      id: account.id,
      name: account.name,
      balance: account.balance ?? 0,
      allowedModels: account.allowed_models,
      limits: account.limits && resolveRateLimits(account.limits),
      policy: resolvePolicy(account.policy),
      ...(account.request_log?.bodies === true ? { requestLogBodies: true } : {}),
      budgets: resolveBudgets(account.budgets, `accounts[${index}].budgets`, source),
    };
  });
}
