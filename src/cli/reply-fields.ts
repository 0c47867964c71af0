import { isRecord } from '../validation/is-record.js';

/** An admin API reply (or a field of one) as a record; {} when it is not one. */
export function recordOf(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

/** An admin API list (`data`, `keys`, `windows`…) as its records; [] when it is not a list. */
export function recordsOf(value: unknown): Array<Record<string, unknown>> {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}
