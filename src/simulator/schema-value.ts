import type { RandomSource } from './mulberry32.js';
import { VOCABULARY } from './vocabulary.js';
import { isRecord } from '../validation/is-record.js';

/** Deeper schemas get `null` there: a recursive schema must not recurse forever. */
const MAX_DEPTH = 8;

function word(random: RandomSource): string {
  return VOCABULARY[Math.floor(random() * VOCABULARY.length)] ?? 'value';
}

function typeOf(schema: Record<string, unknown>): string | undefined {
  const type = Array.isArray(schema.type) ? schema.type.find((entry) => entry !== 'null') : schema.type;
  if (typeof type === 'string') return type;
  if (isRecord(schema.properties)) return 'object';
  if (schema.items !== undefined) return 'array';
  return undefined;
}

/**
 * A deterministic value that fits a JSON schema (the subset tools and structured outputs
 * use): `const`, `enum`, the first of `anyOf`/`oneOf`, objects with their `required`
 * properties (every property when none is required), one-item arrays, vocabulary words
 * for strings, small integers, `true`. Unknown or missing schemas give a word.
 */
export function schemaValue(schema: unknown, random: RandomSource, depth = 0): unknown {
  if (depth > MAX_DEPTH) return null;
  if (!isRecord(schema)) return word(random);
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0)
    return schema.enum[Math.floor(random() * schema.enum.length)];
  const variants = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
  if (variants !== undefined && variants.length > 0) return schemaValue(variants[0], random, depth + 1);
  switch (typeOf(schema)) {
    case 'object': {
      const properties = isRecord(schema.properties) ? schema.properties : {};
      const required = Array.isArray(schema.required)
        ? schema.required.filter((name): name is string => typeof name === 'string')
        : Object.keys(properties);
      const value: Record<string, unknown> = {};
      for (const name of required) value[name] = schemaValue(properties[name], random, depth + 1);
      return value;
    }
    case 'array':
      return [schemaValue(schema.items, random, depth + 1)];
    case 'integer':
    case 'number':
      return 1 + Math.floor(random() * 100);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return word(random);
  }
}
