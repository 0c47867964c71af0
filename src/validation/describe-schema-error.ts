import type { ErrorObject } from 'ajv';
import { phrase, renderPhrase, type Phrase } from '../errors/reasons.js';
import { fieldOf } from './field-of.js';

/** Where in a document a schema error is, and what is wrong there, as a phrase of the reason registry. */
export interface SchemaProblem {
  /** Dotted path with indexes, e.g. `messages[0].role`; empty for the document itself. */
  readonly path: string;
  /** What the value must be, e.g. `is required` (PHRASES in errors/reasons.ts). */
  readonly problem: Phrase;
}

/** Turns a JSON pointer (`/messages/0/role`) into the path clients know (`messages[0].role`). */
export function pointerToPath(pointer: string): string {
  if (pointer === '') return '';
  let path = '';
  for (const raw of pointer.slice(1).split('/')) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    path += /^\d+$/.test(segment) ? `[${segment}]` : path === '' ? segment : `.${segment}`;
  }
  return path;
}

function join(path: string, property: string): string {
  return path === '' ? property : `${path}.${property}`;
}

/** Describes Ajv's first error as a path and what is wrong there. */
export function describeSchemaError(error: ErrorObject): SchemaProblem {
  const path = pointerToPath(error.instancePath);
  const params: Record<string, unknown> = error.params;
  switch (error.keyword) {
    case 'required':
      return { path: join(path, String(params.missingProperty)), problem: phrase('required') };
    case 'additionalProperties':
      return { path: join(path, String(params.additionalProperty)), problem: phrase('unknown_field') };
    case 'type':
      return { path, problem: phrase('of_type', { types: String(params.type) }) };
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return {
        path,
        problem: phrase('compared', { comparison: String(params.comparison), limit: Number(params.limit) }),
      };
    case 'minLength':
    case 'minItems':
      return {
        path,
        problem:
          params.limit === 1
            ? phrase('not_empty')
            : phrase('at_least', { limit: Number(params.limit), unit: unitOf(error.keyword) }),
      };
    case 'maxLength':
    case 'maxItems':
      return { path, problem: phrase('at_most', { limit: Number(params.limit), unit: unitOf(error.keyword) }) };
    case 'enum':
    case 'const':
      return { path, problem: phrase('one_of', { values: allowedValues(error) }) };
    case 'anyOf':
    case 'oneOf':
      return { path, problem: alternativesPhrase(error) };
    case 'pattern':
      return { path, problem: phrase('matches', { pattern: String(params.pattern) }) };
    default:
      return { path, problem: phrase('breaks_rule', { rule: error.message }) };
  }
}

/** The same in English words (`messages[0].content is required` for the configuration's errors). */
export function describeSchemaErrorInEnglish(error: ErrorObject | undefined): { path: string; expected: string } {
  const { path, problem } = error ? describeSchemaError(error) : { path: '', problem: phrase('breaks_rule') };
  return { path, expected: renderPhrase(problem, 'en') };
}

function unitOf(keyword: string): 'items' | 'characters' {
  return keyword === 'minItems' || keyword === 'maxItems' ? 'items' : 'characters';
}

function allowedValues(error: ErrorObject): string {
  const params: Record<string, unknown> = error.params;
  const values = Array.isArray(params.allowedValues) ? params.allowedValues : [params.allowedValue];
  return values.map((value) => JSON.stringify(value)).join(', ');
}

/** Branches of a union, nested unions flattened (TypeBox writes `T | null` around enums that way). */
function flattenBranches(schema: unknown): unknown[] {
  const branches = fieldOf(schema, 'anyOf') ?? fieldOf(schema, 'oneOf');
  return Array.isArray(branches) ? branches.flatMap(flattenBranches) : [schema];
}

/** For a union of literals (TypeBox's enum form), list the literals; else list the types. */
function alternativesPhrase(error: ErrorObject): Phrase {
  const branches = flattenBranches(error.parentSchema);
  const literals = branches.map((branch) => fieldOf(branch, 'const')).filter((value) => value !== undefined);
  const types = branches.map((branch) => fieldOf(branch, 'type')).filter((type) => typeof type === 'string');
  if (literals.length > 0 && literals.length + types.filter((type) => type === 'null').length === branches.length) {
    return phrase('one_of', { values: literals.map((value) => JSON.stringify(value)).join(', ') });
  }
  return types.length === branches.length && types.length > 0
    ? phrase('of_type', { types: types.join(',') })
    : phrase('has_invalid_value');
}

/**
 * Picks the error worth reporting. Ajv lists the failed branches of a union before the
 * union itself. When a branch got past the type check and failed deeper inside
 * (`reasoning: {effort: "max"}` against `object | null`), the deeper error is the one to
 * report; when a branch failed on a constraint rather than a type (`temperature: 3`
 * against `number ≤ 2 | null`), that constraint is.
 */
export function pickSchemaError(errors: readonly ErrorObject[] | null | undefined): ErrorObject | undefined {
  const last = errors?.at(-1);
  if (errors === null || errors === undefined || last === undefined) return undefined;
  if (last.keyword !== 'anyOf' && last.keyword !== 'oneOf') return last;
  const deeper = errors.filter((error) => error.instancePath.startsWith(`${last.instancePath}/`));
  if (deeper.length > 0) return pickSchemaError(deeper);
  const constraint = errors.find(
    (error) =>
      error.instancePath === last.instancePath && !['type', 'const', 'anyOf', 'oneOf', 'enum'].includes(error.keyword),
  );
  return constraint ?? last;
}
