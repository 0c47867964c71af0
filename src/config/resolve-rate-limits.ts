import type { RateLimitsFile } from './config-schema.js';
import type { RateLimitSettings } from './gateway-config.js';

/** One scope's rate limits: each field the file leaves out comes from `base` (none for a key or account). */
export function resolveRateLimits(file: RateLimitsFile, base?: RateLimitSettings): RateLimitSettings {
  return { rpm: file.rpm ?? base?.rpm, rps: file.rps ?? base?.rps, tpm: file.tpm ?? base?.tpm };
}
