import type { AppliedKeys } from '../billing/apply-config.js';
import type { Logger } from '../observability/logger.js';

/** One line each when the file blocked keys whose line is gone, or restored keys whose line came back (prefixes only). */
export function logAppliedKeys(logger: Logger, applied: AppliedKeys): void {
  if (applied.blocked.length > 0)
    logger.warn({ keys: applied.blocked }, 'keys removed from the configuration are blocked');
  if (applied.restored.length > 0)
    logger.info({ keys: applied.restored }, 'keys back in the configuration are active again');
}
