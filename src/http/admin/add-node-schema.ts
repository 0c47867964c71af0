import { Type } from '@sinclair/typebox';
import { NodeSchema, type NodeConfigFile } from '../../config/config-schema.js';

/**
 * POST /admin/v1/nodes: a node entry as in the configuration file, plus the models it
 * serves. Compiled ahead of time into src/validation/generated/validate-add-node.ts.
 */
export const AddNodeSchema = Type.Composite(
  [
    NodeSchema,
    Type.Object({
      models: Type.Array(
        Type.Object(
          {
            model: Type.String({ minLength: 1 }),
            upstream_model: Type.Optional(Type.String({ minLength: 1 })),
            weight: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
            priority: Type.Optional(Type.Integer({ minimum: 0 })),
          },
          { additionalProperties: false },
        ),
        { minItems: 1 },
      ),
    }),
  ],
  { additionalProperties: false },
);

/** A valid add-node body. */
export type AddNodeBody = NodeConfigFile & {
  models: Array<{ model: string; upstream_model?: string; weight?: number; priority?: number }>;
};
