import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';

/** A value that passed a loose schema: the fields it names typed, any others kept, typed unknown. */
export type Loose<T extends TSchema> = Static<T> & Record<string, unknown>;

/**
 * A check compiled once (at module load) for a loose read-schema of a node's wire format.
 * The schema names only the fields the gateway reads and allows any others (TypeBox objects
 * do unless told otherwise), so a node that adds fields never fails it.
 */
export function looseCheck<T extends TSchema>(schema: T): (value: unknown) => value is Loose<T> {
  const compiled = TypeCompiler.Compile(schema);
  return (value: unknown): value is Loose<T> => compiled.Check(value);
}
