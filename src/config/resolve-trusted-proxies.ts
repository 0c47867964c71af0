import { ConfigError } from './config-error.js';
import { addressRangeProblem } from './ip-address.js';

/** Trusted proxy addresses and ranges, each checked. */
export function resolveTrustedProxies(entries: readonly string[] | undefined, source: string): readonly string[] {
  (entries ?? []).forEach((entry, index) => {
    const problem = addressRangeProblem(entry);
    if (problem !== undefined) throw new ConfigError(source, `trusted_proxies[${index}]`, problem);
  });
  return entries ?? [];
}
