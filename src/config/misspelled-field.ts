import type { ErrorObject } from 'ajv';
import { pointerToPath } from '../validation/describe-schema-error.js';
import { isRecord } from '../validation/is-record.js';

/** How far (in edits) a written name may be from a known one to be offered as what was meant. */
const MAX_EDITS = 2;

/** Edits between two names (insert, delete, replace, swap two neighbours): `modles` is 1 from `models`. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number): number => rows[i]?.[j] ?? 0;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] ?? [];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      row[j] = best;
    }
  }
  return at(a.length, b.length);
}

/** The known name closest to `name`, if one is close enough to be a misspelling of it. */
export function closestName(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.min(MAX_EDITS, Math.floor(name.length / 2)) + 1;
  for (const candidate of known) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * A field name the schema does not know, in the object a schema error is about, with the
 * known name it is probably a misspelling of. The validator stops at its first error, and
 * a `required` one comes first: a misspelled `modles:` would be reported as a missing
 * `models`; this names the unknown key instead. Needs the validator's `verbose` errors
 * (the object and its schema in each error). Undefined when the object has no unknown key.
 */
export function misspelledField(error: ErrorObject): { path: string; problem: string } | undefined {
  if (error.keyword !== 'required' && error.keyword !== 'additionalProperties') return undefined;
  const schema: unknown = error.parentSchema;
  const data: unknown = error.data;
  if (!isRecord(schema) || !isRecord(schema.properties) || !isRecord(data)) return undefined;
  const known = Object.keys(schema.properties);
  const unknown = Object.keys(data).filter((key) => !known.includes(key));
  if (unknown.length === 0) return undefined;
  const params: Record<string, unknown> = error.params;
  const missing = error.keyword === 'required' ? String(params.missingProperty) : undefined;
  // The unknown key that is a misspelling of the missing one, else the first with a suggestion, else the first.
  const suggested = unknown.map((key) => ({
    key,
    suggestion: missing !== undefined && closestName(key, [missing]) !== undefined ? missing : closestName(key, known),
  }));
  const pick =
    suggested.find((entry) => entry.suggestion !== undefined && entry.suggestion === missing) ??
    suggested.find((entry) => entry.suggestion !== undefined) ??
    suggested[0];
  if (pick === undefined) return undefined;
  const base = pointerToPath(error.instancePath);
  const path = base === '' ? pick.key : `${base}.${pick.key}`;
  const hint = pick.suggestion === undefined ? '' : `; did you mean "${pick.suggestion}"?`;
  return { path, problem: `is not a known field${hint}` };
}
