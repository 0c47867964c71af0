import { checkAllowedModels } from './check-allowed-models.js';
import { ConfigError } from './config-error.js';
import type { ConfigFile } from './config-schema.js';
import type { KeyConfig } from './gateway-config.js';
import { parseIsoTime } from './iso-time.js';
import { resolveBudgets } from './resolve-budgets.js';
import { resolvePolicy } from './resolve-policy.js';
import { resolveRateLimits } from './resolve-rate-limits.js';

type KeyFile = NonNullable<ConfigFile['keys']>[number];

/** The API keys with defaults: each declared once, of a known account, allowed only known models. */
export function resolveKeys(
  file: ConfigFile['keys'],
  modelIds: ReadonlySet<string>,
  accountIds: ReadonlySet<string>,
  source: string,
): KeyConfig[] {
  const seenKeys = new Set<string>();
  return (file ?? []).map((key, index) => {
    const path = `keys[${index}]`;
    checkAllowedModels(key.allowed_models, modelIds, `${path}.allowed_models`, source);
    if (key.account !== undefined && !accountIds.has(key.account)) {
      throw new ConfigError(source, `${path}.account`, `unknown account "${key.account}"`);
    }
    // Never echo the key itself: name the entry by position only.
    if (seenKeys.has(key.key)) throw new ConfigError(source, `${path}.key`, 'the same key is declared twice');
    seenKeys.add(key.key);
    return resolveKey(key, path, source);
  });
}

function resolveKey(key: KeyFile, path: string, source: string): KeyConfig {
  const expiresAt = resolveExpiry(key.expires_at, path, source);
  return {
    key: key.key,
    accountId: key.account,
    name: key.name,
    spendLimit: key.spend_limit,
    limits: key.limits && resolveRateLimits(key.limits),
    allowedModels: key.allowed_models,
    policy: resolvePolicy(key.policy),
    budgets: resolveBudgets(key.budgets, `${path}.budgets`, source),
    endUserBudgets: resolveBudgets(key.end_user_budgets, `${path}.end_user_budgets`, source),
    status: key.status ?? 'active',
    ...(key.request_log?.bodies === true ? { requestLogBodies: true } : {}),
    expiresAt,
  };
}

/** `expires_at` normalised to UTC; undefined: the key never expires. */
function resolveExpiry(expiresAtText: string | undefined, path: string, source: string): string | undefined {
  if (expiresAtText === undefined) return undefined;
  const expiresAt = parseIsoTime(expiresAtText);
  if (expiresAt === undefined) {
    throw new ConfigError(
      source,
      `${path}.expires_at`,
      'must be an ISO 8601 time with a zone, such as "2027-01-31T00:00:00Z"',
    );
  }
  return new Date(expiresAt).toISOString();
}
