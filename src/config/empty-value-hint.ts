import type { ErrorObject } from 'ajv';

/**
 * What to add to a type error on a value that is empty: in YAML `keys:` with nothing after
 * it is null, not an empty list, and "must be an array" alone does not say so. Needs the
 * validator's `verbose` errors (the value in `data`). Undefined for any other error.
 */
export function emptyValueHint(error: ErrorObject | undefined): string | undefined {
  if (error?.keyword !== 'type' || error.data !== null) return undefined;
  const name = error.instancePath.split('/').pop() ?? '';
  const params: Record<string, unknown> = error.params;
  const type = String(params.type);
  const empty = type.includes('array') ? '[]' : type.includes('object') ? '{}' : undefined;
  if (name === '' || /^\d+$/.test(name) || empty === undefined) return undefined;
  return `"${name}:" with nothing after it is empty (null) in YAML; write "${name}: ${empty}" for none, or leave the line out`;
}
