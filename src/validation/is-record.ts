/** A record, not null, not an array: the one guard every layer reads loose JSON with. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
