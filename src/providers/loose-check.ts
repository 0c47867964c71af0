import type { Static, TSchema } from '@sinclair/typebox';

/**
 * A value that passed a loose schema: the fields it names typed, any others kept, typed unknown.
 *
 * A loose schema names only the fields the gateway reads of a node's wire format and allows
 * any others (TypeBox objects do unless told otherwise), so a node that adds fields never
 * fails it. Its check is generated code (`src/validation/generated/validate-node-replies.js`,
 * scripts/generate-validators.ts), as for the gateway's other schemas: nothing compiles a
 * schema, and TypeBox is not loaded, when the gateway runs.
 */
export type Loose<T extends TSchema> = Static<T> & Record<string, unknown>;
