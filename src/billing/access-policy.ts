import type { ModelConfig, ReasoningEffort } from '../config/gateway-config.js';
import { CORE_EFFORTS, REASONING_EFFORTS, effortRank } from '../config/reasoning-efforts.js';
import { gatewayError } from '../errors/gateway-error.js';
import type { AccountRecord, FeaturePolicy, KeyRecord } from '../store/records.js';

/** Whether the key (and its account) may use the model at all: both lists must allow it. */
export function mayUseModel(key: KeyRecord, account: AccountRecord | undefined, modelId: string): boolean {
  return (
    (account?.allowedModels ?? null)?.includes(modelId) !== false &&
    (key.allowedModels ?? null)?.includes(modelId) !== false
  );
}

function denied(reasonEn: string, reasonRu: string, params: Record<string, string>, param: string | null = null) {
  return gatewayError('access_denied', { param, params: { ...params, reason_en: reasonEn, reason_ru: reasonRu } });
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
    throw denied(
      'streaming is not enabled for this account or key.',
      'потоковая передача не разрешена для этого аккаунта или ключа.',
      { feature: 'streaming' },
      'stream',
    );
  }
  const ceiling = policy.maxReasoningEffort;
  if (effort !== undefined && ceiling !== undefined && effortRank(effort) > effortRank(ceiling)) {
    if (param === undefined) return lowered(model, ceiling);
    throw denied(
      `reasoning effort "${effort}" is above the allowed "${ceiling}".`,
      `уровень рассуждений "${effort}" выше разрешённого "${ceiling}".`,
      { feature: 'reasoning_effort', effort, max_effort: ceiling },
      param,
    );
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
    throw denied(
      `this key may not use the model "${model.id}".`,
      `этому ключу не разрешена модель "${model.id}".`,
      { model: model.id },
      'model',
    );
  }
  const effort = checkFeatures(account?.policy ?? null, model, request.stream, request.effort, request.effortParam);
  return checkFeatures(key.policy, model, request.stream, effort, request.effortParam);
}
