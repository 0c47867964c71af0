import type { ErrorObject } from 'ajv';

/** Where in a document a schema error is, and what is wrong there, in plain words. */
export interface SchemaProblem {
  /** Dotted path with indexes, e.g. `messages[0].role`; empty for the document itself. */
  readonly path: string;
  readonly expected: string;
  /** The same phrase in Russian, for clients that prefer it. */
  readonly expectedRu: string;
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

/** Describes Ajv's first error as a path and an English "expected" phrase. */
export function describeSchemaError(error: ErrorObject): SchemaProblem {
  const path = pointerToPath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { path: join(path, String(params.missingProperty)), expected: 'is required', expectedRu: 'обязателен' };
    case 'additionalProperties':
      return {
        path: join(path, String(params.additionalProperty)),
        expected: 'is not a known field',
        expectedRu: 'не является известным полем',
      };
    case 'type':
      return {
        path,
        expected: `must be ${article(String(params.type))}`,
        expectedRu: `должен иметь тип ${String(params.type)}`,
      };
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return {
        path,
        expected: `must be ${String(params.comparison)} ${String(params.limit)}`,
        expectedRu: `должен быть ${String(params.comparison)} ${String(params.limit)}`,
      };
    case 'minLength':
    case 'minItems':
      return params.limit === 1
        ? { path, expected: 'must not be empty', expectedRu: 'не должен быть пустым' }
        : {
            path,
            expected: `must have at least ${String(params.limit)} ${error.keyword === 'minItems' ? 'items' : 'characters'}`,
            expectedRu: `должен содержать не меньше ${String(params.limit)} ${error.keyword === 'minItems' ? 'элементов' : 'символов'}`,
          };
    case 'maxLength':
    case 'maxItems':
      return {
        path,
        expected: `must have at most ${String(params.limit)} ${error.keyword === 'maxItems' ? 'items' : 'characters'}`,
        expectedRu: `должен содержать не больше ${String(params.limit)} ${error.keyword === 'maxItems' ? 'элементов' : 'символов'}`,
      };
    case 'enum':
    case 'const':
      return {
        path,
        expected: `must be one of ${allowedValues(error)}`,
        expectedRu: `должен быть одним из: ${allowedValues(error)}`,
      };
    case 'anyOf':
    case 'oneOf':
      return { path, ...alternativesPhrase(error) };
    case 'pattern':
      return {
        path,
        expected: `must match ${String(params.pattern)}`,
        expectedRu: `должен соответствовать шаблону ${String(params.pattern)}`,
      };
    default:
      return { path, expected: error.message ?? 'is invalid', expectedRu: 'имеет недопустимое значение' };
  }
}

function article(type: string): string {
  const names = type
    .split(',')
    .map((name) =>
      name === 'integer' ? 'an integer' : name === 'object' || name === 'array' ? `an ${name}` : `a ${name}`,
    );
  return names.join(' or ');
}

function allowedValues(error: ErrorObject): string {
  const params = error.params as { allowedValues?: unknown[]; allowedValue?: unknown };
  const values = params.allowedValues ?? [params.allowedValue];
  return values.map((value) => JSON.stringify(value)).join(', ');
}

/** Branches of a union, nested unions flattened (TypeBox writes `T | null` around enums that way). */
function flattenBranches(schema: unknown): unknown[] {
  const union = schema as { anyOf?: unknown[]; oneOf?: unknown[] } | undefined;
  const branches = union?.anyOf ?? union?.oneOf;
  return branches ? branches.flatMap(flattenBranches) : [schema];
}

/** For a union of literals (TypeBox's enum form), list the literals; else list the types. */
function alternativesPhrase(error: ErrorObject): { expected: string; expectedRu: string } {
  const branches = flattenBranches(error.parentSchema);
  const literals = branches
    .map((branch) => (branch as { const?: unknown }).const)
    .filter((value) => value !== undefined);
  const types = branches
    .map((branch) => (branch as { type?: unknown }).type)
    .filter((type) => typeof type === 'string');
  if (literals.length > 0 && literals.length + types.filter((type) => type === 'null').length === branches.length) {
    const list = literals.map((value) => JSON.stringify(value)).join(', ');
    return { expected: `must be one of ${list}`, expectedRu: `должен быть одним из: ${list}` };
  }
  return types.length === branches.length && types.length > 0
    ? { expected: `must be ${article(types.join(','))}`, expectedRu: `должен иметь тип ${types.join(' или ')}` }
    : { expected: 'has an invalid value', expectedRu: 'имеет недопустимое значение' };
}

/**
 * Picks the error worth reporting. Ajv lists the failed branches of a union before the
 * union itself. When a branch got past the type check and failed deeper inside
 * (`reasoning: {effort: "max"}` against `object | null`), the deeper error is the one to
 * report; when a branch failed on a constraint rather than a type (`temperature: 3`
 * against `number ≤ 2 | null`), that constraint is.
 */
export function pickSchemaError(errors: readonly ErrorObject[] | null | undefined): ErrorObject | undefined {
  if (!errors || errors.length === 0) return undefined;
  const last = errors[errors.length - 1] as ErrorObject;
  if (last.keyword !== 'anyOf' && last.keyword !== 'oneOf') return last;
  const deeper = errors.filter((error) => error.instancePath.startsWith(`${last.instancePath}/`));
  if (deeper.length > 0) return pickSchemaError(deeper);
  const constraint = errors.find(
    (error) =>
      error.instancePath === last.instancePath && !['type', 'const', 'anyOf', 'oneOf', 'enum'].includes(error.keyword),
  );
  return constraint ?? last;
}
