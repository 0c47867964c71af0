import type { WireProtocol } from './wire-protocols.js';
import type { ModelConfig, ModelReasoningSettings, ReasoningEffort, ReasoningLevel } from './gateway-config.js';
import { CORE_EFFORTS, effortBudget } from './reasoning-efforts.js';

/**
 * What each node protocol accepts of a model's reasoning settings (provider-protocols
 * 4.2, 4.3, 5.3; docs/reasoning.md): the level words and budget floors the adapters send,
 * and the check a model's settings pass at configuration load for every protocol it is
 * routed to.
 */

/** Anthropic's smallest thinking budget (provider-protocols 4.3). */
export const MIN_THINKING_BUDGET = 1024;

/** Levels `output_config.effort` accepts (provider-protocols 4.2). */
export const ANTHROPIC_EFFORTS: ReadonlySet<string> = new Set(['low', 'medium', 'high', 'xhigh', 'max']);

/** The `output_config.effort` of an effort without a configured level: `minimal` has none on Anthropic, the nearest is `low`. */
export function anthropicLevel(
  settings: ModelReasoningSettings,
  effort: Exclude<ReasoningEffort, 'none'>,
): ReasoningLevel {
  return settings.levels[effort] ?? (effort === 'minimal' ? 'low' : effort);
}

/** `thinkingLevel` values (provider-protocols 5.3; sent upper-case). */
export const GEMINI_LEVELS: ReadonlySet<string> = new Set(['minimal', 'low', 'medium', 'high']);

/**
 * The `thinkingLevel` of an effort without a configured level: Gemini's lowest (`minimal`)
 * for `none` and `minimal` (Gemini 3 cannot switch thinking off), its highest for `xhigh` and `max`.
 */
export function geminiLevel(settings: ModelReasoningSettings, effort: ReasoningEffort): ReasoningLevel {
  const own = settings.levels[effort];
  if (own !== undefined) return own;
  return effort === 'none' || effort === 'minimal' ? 'minimal' : 'high';
}

/** Reasoning settings Anthropic cannot take: levels it does not know, budgets under its minimum. */
function anthropicReasoningProblem(model: ModelConfig): { path: string; problem: string } | undefined {
  const reasoning = model.reasoning;
  if (reasoning === undefined) return undefined;
  // The efforts the model takes; `none` sends no thinking, so it has nothing to check.
  for (const effort of ['minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const) {
    if (!CORE_EFFORTS.has(effort) && reasoning.efforts?.has(effort) !== true) continue;
    const level = anthropicLevel(reasoning, effort);
    if (reasoning.style === 'level' && !ANTHROPIC_EFFORTS.has(level)) {
      return {
        path: `reasoning.levels.${effort}`,
        problem: `"${level}" is not an Anthropic effort (low, medium, high, xhigh, max)`,
      };
    }
    const budget = effortBudget(reasoning, effort);
    if (reasoning.style === 'budget' && budget < MIN_THINKING_BUDGET) {
      return {
        path: `reasoning.budgets.${effort}`,
        problem: `${budget} is below Anthropic's minimum thinking budget of ${MIN_THINKING_BUDGET}`,
      };
    }
  }
  return undefined;
}

/** Reasoning levels Gemini does not know (`xhigh`, `max`). */
function geminiReasoningProblem(model: ModelConfig): { path: string; problem: string } | undefined {
  const reasoning = model.reasoning;
  if (reasoning === undefined || reasoning.style !== 'level') return undefined;
  for (const effort of ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const) {
    if (!CORE_EFFORTS.has(effort) && reasoning.efforts?.has(effort) !== true) continue;
    const level = geminiLevel(reasoning, effort);
    if (!GEMINI_LEVELS.has(level)) {
      return {
        path: `reasoning.levels.${effort}`,
        problem: `"${level}" is not a Gemini thinking level (minimal, low, medium, high)`,
      };
    }
  }
  return undefined;
}

/** What is wrong with a model's reasoning settings for a node protocol (path relative to the model entry), or undefined. */
export function reasoningProblem(
  protocol: WireProtocol,
  model: ModelConfig,
): { readonly path: string; readonly problem: string } | undefined {
  if (protocol === 'anthropic') return anthropicReasoningProblem(model);
  if (protocol === 'gemini') return geminiReasoningProblem(model);
  return undefined;
}
