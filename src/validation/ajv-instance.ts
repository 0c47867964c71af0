import { Ajv } from 'ajv';

/**
 * The one Ajv instance: schemas are compiled once at start into plain functions. First
 * error only (`allErrors: false`) keeps the request path cheap; no type coercion.
 */
export const ajv = new Ajv({ allErrors: false, coerceTypes: false, useDefaults: false, strict: false, verbose: true });
