import { Type, type Static } from '@sinclair/typebox';
import { MAX_BALANCE_USD } from '../billing/money.js';
import { REASONING_EFFORTS } from '../config/reasoning-efforts.js';

/**
 * Bodies of the admin API (and the CLI, which sends the same bodies). USD amounts are numbers,
 * at most MAX_BALANCE_USD (money stays exact in nano-USD).
 * Compiled ahead of time into src/validation/generated/validate-admin-bodies.ts.
 */

const Effort = Type.Union(REASONING_EFFORTS.map((effort) => Type.Literal(effort)));
const Limits = Type.Object(
  {
    rpm: Type.Optional(Type.Integer({ minimum: 1 })),
    rps: Type.Optional(Type.Integer({ minimum: 1 })),
    tpm: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);
const Policy = Type.Object(
  { streaming: Type.Optional(Type.Boolean()), max_reasoning_effort: Type.Optional(Effort) },
  { additionalProperties: false },
);
/** `request_log`: `bodies: true` keeps request and reply bodies in the request records (PRODUCT decision 28). */
const RequestLog = Type.Object({ bodies: Type.Boolean() }, { additionalProperties: false });
const Models = Type.Array(Type.String({ minLength: 1 }), { maxItems: 1000 });
const Usd = Type.Number({ minimum: -MAX_BALANCE_USD, maximum: MAX_BALANCE_USD });
const Reason = Type.String({ minLength: 1, maxLength: 500 });
/** Budgets that reset (PRODUCT.md decision 27): at most one per period; null removes them. */
const Budgets = Type.Union([
  Type.Array(
    Type.Object(
      {
        limit: Type.Number({ minimum: 0, maximum: MAX_BALANCE_USD }),
        period: Type.Union([Type.Literal('day'), Type.Literal('week'), Type.Literal('month')]),
      },
      { additionalProperties: false },
    ),
    { maxItems: 3 },
  ),
  Type.Null(),
]);
/** An ISO 8601 time (checked as a time by the service); null: never. */
const ExpiresAt = Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()]);

/** Longest grace a rotation gives the old secret: 30 days. */
export const MAX_ROTATION_GRACE_SECONDS = 30 * 24 * 3600;
/** The grace when none is asked for: an hour, time to roll the new secret out to every client. */
export const DEFAULT_ROTATION_GRACE_SECONDS = 3600;

export const CreateAccountSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._@-]+$' }),
    name: Type.Optional(Type.String({ maxLength: 200 })),
    balance: Type.Optional(Type.Number({ minimum: 0, maximum: MAX_BALANCE_USD })),
    allowed_models: Type.Optional(Type.Union([Models, Type.Null()])),
    limits: Type.Optional(Type.Union([Limits, Type.Null()])),
    policy: Type.Optional(Type.Union([Policy, Type.Null()])),
    request_log: Type.Optional(Type.Union([RequestLog, Type.Null()])),
    budgets: Type.Optional(Budgets),
  },
  { additionalProperties: false },
);

export const UpdateAccountSchema = Type.Object(
  {
    name: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
    allowed_models: Type.Optional(Type.Union([Models, Type.Null()])),
    limits: Type.Optional(Type.Union([Limits, Type.Null()])),
    policy: Type.Optional(Type.Union([Policy, Type.Null()])),
    request_log: Type.Optional(Type.Union([RequestLog, Type.Null()])),
    budgets: Type.Optional(Budgets),
  },
  { additionalProperties: false },
);

export const TopUpSchema = Type.Object(
  { amount: Type.Number({ exclusiveMinimum: 0, maximum: MAX_BALANCE_USD }), reason: Reason },
  { additionalProperties: false },
);

export const AdjustSchema = Type.Object({ amount: Usd, reason: Reason }, { additionalProperties: false });

export const CreateKeySchema = Type.Object(
  {
    account: Type.String({ minLength: 1 }),
    name: Type.Optional(Type.String({ maxLength: 200 })),
    spend_limit: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: MAX_BALANCE_USD }), Type.Null()])),
    limits: Type.Optional(Type.Union([Limits, Type.Null()])),
    allowed_models: Type.Optional(Type.Union([Models, Type.Null()])),
    policy: Type.Optional(Type.Union([Policy, Type.Null()])),
    request_log: Type.Optional(Type.Union([RequestLog, Type.Null()])),
    budgets: Type.Optional(Budgets),
    end_user_budgets: Type.Optional(Budgets),
    expires_at: Type.Optional(ExpiresAt),
  },
  { additionalProperties: false },
);

export const UpdateKeySchema = Type.Object(
  {
    name: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
    spend_limit: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: MAX_BALANCE_USD }), Type.Null()])),
    limits: Type.Optional(Type.Union([Limits, Type.Null()])),
    allowed_models: Type.Optional(Type.Union([Models, Type.Null()])),
    policy: Type.Optional(Type.Union([Policy, Type.Null()])),
    request_log: Type.Optional(Type.Union([RequestLog, Type.Null()])),
    budgets: Type.Optional(Budgets),
    end_user_budgets: Type.Optional(Budgets),
    expires_at: Type.Optional(ExpiresAt),
  },
  { additionalProperties: false },
);

export const RotateKeySchema = Type.Object(
  { grace_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_ROTATION_GRACE_SECONDS })) },
  { additionalProperties: false },
);

export type CreateAccountBody = Static<typeof CreateAccountSchema>;
export type UpdateAccountBody = Static<typeof UpdateAccountSchema>;
export type TopUpBody = Static<typeof TopUpSchema>;
export type AdjustBody = Static<typeof AdjustSchema>;
export type CreateKeyBody = Static<typeof CreateKeySchema>;
export type UpdateKeyBody = Static<typeof UpdateKeySchema>;
export type RotateKeyBody = Static<typeof RotateKeySchema>;
export type PolicyBody = Static<typeof Policy>;
export type BudgetsBody = Static<typeof Budgets>;
