import type { ModelConfig, ReasoningEffort } from '../config/gateway-config.js';
import { CORE_EFFORTS, REASONING_EFFORTS, effortRank } from '../config/reasoning-efforts.js';
import { gatewayError } from '../errors/gateway-error.js';
import { because, type Reason } from '../errors/reasons.js';
import type { AccountRecord, FeaturePolicy, KeyRecord } from '../store/records.js';

/** Whether the key (and its account) may use the model at all: both lists must allow it. */
export function mayUseModel(key: KeyRecord, account: AccountRecord | undefined, modelId: string): boolean {
  return (
    (account?.allowedModels ?? null)?.includes(modelId) !== false &&
    (key.allowedModels ?? null)?.includes(modelId) !== false
  );
}

function denied(reason: Reason, param: string) {
  return gatewayError('access_denied', { param, reason });
}

/**
 * What a default effort above the ceiling is lowered to: the highest effort the model takes
 * at or below it; the ceiling itself when the model takes none there (a ceiling of `none`).
 */
function lowered(model: ModelConfig, ceiling: ReasoningEffort): ReasoningEffort {
  const taken = REASONING_EFFORTS.filter(
    (effort) =>
      effortRank(effort) <= effortRank(ceiling) &&
      (CORE_EFFORTS.has(effort) || model.reasoning?.efforts?.has(effort) === true),
  );
  return taken.at(-1) ?? ceiling;
}

/** The effort after one policy: an explicit effort above the ceiling is refused, the model's default is lowered to it. */
function checkFeatures(
  policy: FeaturePolicy | null,
  model: ModelConfig,
  stream: boolean,
  effort: ReasoningEffort | undefined,
  param: string | undefined,
): ReasoningEffort | undefined {
  if (policy === null) return effort;
  if (stream && policy.streaming === false) {
    throw denied(because('streaming_not_allowed'), 'stream');
  }
  const ceiling = policy.maxReasoningEffort;
  if (effort !== undefined && ceiling !== undefined && effortRank(effort) > effortRank(ceiling)) {
    if (param === undefined) return lowered(model, ceiling);
    throw denied(because('effort_above_ceiling', { effort, ceiling }), param);
  }
  return effort;
}

/** What the policy looks at in a request. */
export interface AccessRequest {
  readonly stream: boolean;
  readonly effort: ReasoningEffort | undefined;
  /** Where the client set the effort (`reasoning_effort` or `reasoning.effort`); undefined: the model's default. */
  readonly effortParam: string | undefined;
}

/**
 * Account policy (spec 5.5, issue 4): 403 access_denied for a model outside the account's
 * or the key's allowed models, for streaming where it is switched off, and for an explicit
 * reasoning effort above the allowed ceiling (a default above it is lowered to it). Both
 * the account's and the key's policy apply. Returns the effort to use.
 */
export function checkAccess(
  key: KeyRecord,
  account: AccountRecord | undefined,
  model: ModelConfig,
  request: AccessRequest,
): ReasoningEffort | undefined {
  if (!mayUseModel(key, account, model.id)) {
    throw denied(because('model_not_allowed', { model: model.id }), 'model');
  }
  const effort = checkFeatures(account?.policy ?? null, model, request.stream, request.effort, request.effortParam);
  return checkFeatures(key.policy, model, request.stream, effort, request.effortParam);
}
