import { ConfigError } from './config-error.js';

/** Refuses a section (`nodes`, `models`, `accounts`) naming one id twice. */
export function requireUniqueIds(source: string, section: string, ids: readonly string[]): void {
  const seen = new Set<string>();
  ids.forEach((id, index) => {
    if (seen.has(id)) throw new ConfigError(source, `${section}[${index}].id`, `duplicate id "${id}"`);
    seen.add(id);
  });
}
