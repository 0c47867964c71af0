import type { ModelReasoningSettings, ReasoningEffort } from '../../config/gateway-config.js';
import { geminiLevel } from '../../config/protocol-reasoning.js';
import type { ChatRequest } from '../../protocol/openai/chat-request-schema.js';
import { thinkingBudgetOf } from '../../protocol/openai/thinking-budget.js';

/**
 * The effort as Gemini `generationConfig.thinkingConfig` (provider-protocols 5.3, 6.5;
 * docs/reasoning.md): style `budget` (Gemini 2.5) sends `thinkingBudget` (the client's
 * `reasoning.max_tokens`, else the model's budget for the effort: `none` 0, thinking off
 * where the model allows it), style `level` (Gemini 3) sends `thinkingLevel`, never both
 * (that is a 400). `includeThoughts` is on, so thought summaries come back as reasoning
 * text, except for `none`.
 */
export function thinkingConfigFor(
  request: ChatRequest,
  effort: ReasoningEffort | undefined,
  settings: ModelReasoningSettings | undefined,
): Record<string, unknown> | undefined {
  if (effort === undefined || settings === undefined) return undefined;
  const includeThoughts = effort !== 'none';
  if (settings.style === 'level')
    return { thinkingLevel: geminiLevel(settings, effort).toUpperCase(), includeThoughts };
  const budget = thinkingBudgetOf(request, settings, effort) ?? 0;
  return { thinkingBudget: budget, includeThoughts: includeThoughts && budget > 0 };
}
