import { ConfigError } from './config-error.js';
import type { ConfigFile } from './config-schema.js';
import { DEFAULTS } from './defaults.js';
import type { BudgetWindowSettings } from './gateway-config.js';
import { isTimeZone } from './time-zone.js';

/** The zone budget windows follow (checked) and how many are kept in memory. */
export function resolveBudgetWindows(file: ConfigFile, source: string): BudgetWindowSettings {
  return {
    timeZone: resolveTimeZone(file.budget_timezone, source),
    cachedWindows: file.budget_cached_windows ?? DEFAULTS.budgetCachedWindows,
  };
}

function resolveTimeZone(zone: string | undefined, source: string): string {
  if (zone === undefined) return DEFAULTS.budgetTimezone;
  if (!isTimeZone(zone))
    throw new ConfigError(
      source,
      'budget_timezone',
      `unknown time zone "${zone}": give an IANA name such as "Europe/Berlin" or "UTC"`,
    );
  return zone;
}
