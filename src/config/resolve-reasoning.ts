import { ConfigError } from './config-error.js';
import type { ConfigFile } from './config-schema.js';
import { DEFAULTS } from './defaults.js';
import type { ModelReasoningSettings } from './gateway-config.js';
import { CORE_EFFORTS, REASONING_EFFORTS, type ReasoningEffort } from './reasoning-efforts.js';

type ModelReasoningFile = NonNullable<ConfigFile['models'][number]['reasoning']>;

/**
 * Reasoning settings with defaults: the efforts beyond low/medium/high the model takes, the
 * default among them, and budgets that must not fall as effort rises (over the efforts taken).
 */
export function resolveReasoning(file: ModelReasoningFile, path: string, source: string): ModelReasoningSettings {
  const budgets = { ...DEFAULTS.reasoning.budgets, ...file.budgets };
  const efforts = new Set((file.efforts ?? []).filter((effort) => !CORE_EFFORTS.has(effort)));
  const taken = REASONING_EFFORTS.filter((effort) => CORE_EFFORTS.has(effort) || efforts.has(effort));
  if (!taken.includes(file.default_effort)) {
    throw new ConfigError(
      source,
      `${path}.default_effort`,
      `"${file.default_effort}" is not one of the model's efforts (${taken.join(', ')}); list it in ${path}.efforts`,
    );
  }
  for (let index = 1; index < taken.length; index++) {
    const lower = taken[index - 1] as ReasoningEffort;
    const higher = taken[index] as ReasoningEffort;
    if (budgets[lower] > budgets[higher]) {
      throw new ConfigError(
        source,
        `${path}.budgets`,
        `must not fall as effort rises (${taken.map((effort) => `${effort} ${budgets[effort]}`).join(', ')})`,
      );
    }
  }
  return {
    defaultEffort: file.default_effort,
    efforts,
    style: file.style ?? 'budget',
    budgets,
    levels: { ...DEFAULTS.reasoning.levels, ...file.levels } as ModelReasoningSettings['levels'],
    ...(file.answer_tokens === undefined ? {} : { answerTokens: file.answer_tokens }),
  };
}
