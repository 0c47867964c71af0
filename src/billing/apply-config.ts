import { hashKey, keyPrefixOf } from '../auth/key-registry.js';
import type {
  BudgetConfig,
  GatewayConfig,
  KeyStatus,
  PolicyConfig,
  RateLimitSettings,
} from '../config/gateway-config.js';
import type { BudgetRule, FeaturePolicy, RateLimits } from '../store/records.js';
import type { Store } from '../store/store.js';
import { declaredKeyState, nextFileKeyState, REMOVED_FROM_CONFIGURATION } from './next-file-key-state.js';
import { usdToNano } from './money.js';
import { nanoPrices } from './prices.js';

/** The stable id of a key declared in the configuration: derived from a prefix of its hash. */
export function configKeyId(hashHex: string): string {
  return `key_${hashHex.slice(0, 16)}`;
}

function limitsOf(limits: RateLimitSettings | undefined): RateLimits | null {
  if (limits === undefined) return null;
  const { rpm, rps, tpm } = limits;
  return {
    ...(rpm === undefined ? {} : { rpm }),
    ...(rps === undefined ? {} : { rps }),
    ...(tpm === undefined ? {} : { tpm }),
  };
}

function policyOf(policy: PolicyConfig | undefined): FeaturePolicy | null {
  if (policy === undefined) return null;
  const { streaming, maxReasoningEffort } = policy;
  return {
    ...(streaming === undefined ? {} : { streaming }),
    ...(maxReasoningEffort === undefined ? {} : { maxReasoningEffort }),
  };
}

/** What applying a file did to keys it no longer (or again) declares, for the log: key prefixes. */
export interface AppliedKeys {
  /** File keys whose line is gone, blocked now. */
  readonly blocked: readonly string[];
  /** File keys whose line came back (or whose file block was lifted), active again. */
  readonly restored: readonly string[];
}

/** Budgets of the file as the store keeps them (nano-USD); null: none. */
export function budgetRulesOf(budgets: readonly BudgetConfig[] | undefined): BudgetRule[] | null {
  return budgets === undefined || budgets.length === 0
    ? null
    : budgets.map((budget) => ({ period: budget.period, limitNano: usdToNano(budget.limit) }));
}

/**
 * Applies the configuration's accounts, keys and prices to the store, at start and on
 * reload. An account's `balance` is its starting balance, booked once when the account is
 * created; after that only top-ups and adjustments change it. Everything else about the
 * declared accounts and keys (names, allowed models, limits, policy, spend limit) follows
 * the file. The keys the file declares are the file's (`source: config`): one whose line
 * is gone is blocked ("removed from the configuration") and unblocked when the line comes
 * back; a status follows the line as `nextFileKeyState` says. Keys made through the admin
 * API or the CLI are not touched. With several instances on one store, each applies its
 * own file: the file applied last wins.
 */
export async function applyConfigToStore(store: Store, config: GatewayConfig): Promise<AppliedKeys> {
  for (const account of config.accounts) {
    const fields = {
      name: account.name ?? null,
      allowedModels: account.allowedModels ?? null,
      limits: limitsOf(account.limits),
      policy: policyOf(account.policy),
      requestLog: account.requestLogBodies === true ? { bodies: true } : null,
      budgets: budgetRulesOf(account.budgets),
    };
    const created = await store.insertAccountIfAbsent(
      { id: account.id, balanceNano: usdToNano(account.balance), ...fields },
      'starting balance from the configuration',
    );
    if (!created) await store.updateAccount(account.id, fields);
  }
  const declared = new Map<string, KeyStatus>();
  for (const key of config.keys) {
    const hash = hashKey(key.key).toString('hex');
    const id = configKeyId(hash);
    declared.set(id, key.status);
    const fields = {
      name: key.name ?? null,
      spendLimitNano: key.spendLimit === undefined ? null : usdToNano(key.spendLimit),
      limits: limitsOf(key.limits),
      allowedModels: key.allowedModels ?? null,
      policy: policyOf(key.policy),
      requestLog: key.requestLogBodies === true ? { bodies: true } : null,
      budgets: budgetRulesOf(key.budgets),
      endUserBudgets: budgetRulesOf(key.endUserBudgets),
      expiresAt: key.expiresAt ?? null,
    };
    const created = await store.insertKeyIfAbsent({
      id,
      hash,
      prefix: keyPrefixOf(key.key),
      accountId: key.accountId ?? null,
      source: 'config',
      ...declaredKeyState(key.status),
      ...fields,
    });
    if (!created) await store.updateKey(id, fields);
  }
  // Every file key in the store, declared now or before (by this file or another one).
  const blocked: string[] = [];
  const restored: string[] = [];
  for (const stored of await store.listKeys({ source: 'config' })) {
    const next = nextFileKeyState(stored, declared.get(stored.id));
    if (next === undefined || (next.status === stored.status && next.statusReason === stored.statusReason)) continue;
    await store.updateKey(stored.id, next);
    if (next.statusReason === REMOVED_FROM_CONFIGURATION) blocked.push(stored.prefix);
    else if (next.status === 'active') restored.push(stored.prefix);
  }
  await store.upsertModelPrices(
    config.models.flatMap((model) => {
      if (model.pricing === undefined) return [];
      const prices = nanoPrices(model.pricing);
      return [
        {
          id: model.id,
          inputNano: prices.input,
          outputNano: prices.output,
          cachedInputNano: prices.cachedInput,
          reasoningNano: prices.reasoning,
        },
      ];
    }),
  );
  return { blocked, restored };
}
