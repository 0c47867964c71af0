import type { ConfigFile } from './config-schema.js';
import { DEFAULTS } from './defaults.js';
import type { LimitSettings } from './gateway-config.js';
import { resolveRateLimits } from './resolve-rate-limits.js';

/** The default rate limits per scope and the per-minute caps on failed sign-ins and token counting. */
export function resolveLimits(file: ConfigFile['limits']): LimitSettings {
  return {
    key: resolveRateLimits(file?.key ?? {}, DEFAULTS.limits.key),
    account: resolveRateLimits(file?.account ?? {}, DEFAULTS.limits.account),
    ip: resolveRateLimits(file?.ip ?? {}, DEFAULTS.limits.ip),
    authFailuresPerMinute: file?.auth_failures_per_minute ?? DEFAULTS.limits.authFailuresPerMinute,
    countTokensPerMinute: file?.count_tokens_per_minute ?? DEFAULTS.limits.countTokensPerMinute,
  };
}
