import type { ModelReasoningSettings, ReasoningEffort } from '../../config/gateway-config.js';

/** `thinkingLevel` values (provider-protocols 5.3; sent upper-case). */
export const GEMINI_LEVELS: ReadonlySet<string> = new Set(['minimal', 'low', 'medium', 'high']);

/**
 * The effort as Gemini `generationConfig.thinkingConfig` (provider-protocols 5.3, 6.5):
 * style `budget` (Gemini 2.5) sends `thinkingBudget`, style `level` (Gemini 3) sends
 * `thinkingLevel`, never both (that is a 400). `includeThoughts` is always on, so thought
 * summaries come back as reasoning text.
 */
export function thinkingConfigFor(effort: ReasoningEffort | undefined, settings: ModelReasoningSettings | undefined): Record<string, unknown> | undefined {
  if (effort === undefined || settings === undefined) return undefined;
  if (settings.style === 'level') return { thinkingLevel: settings.levels[effort].toUpperCase(), includeThoughts: true };
  return { thinkingBudget: settings.budgets[effort], includeThoughts: true };
}
