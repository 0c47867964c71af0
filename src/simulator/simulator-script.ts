import type { OfferedTool, TurnFacts } from './generation-controls.js';
import { PLACEHOLDER, type ScriptRule, type SimulatorScripts } from '../config/simulator-scripts.js';
import { isRecord } from '../validation/is-record.js';

/** The rules for a model: its own, else those under `"*"`, else none. */
export function scriptFor(scripts: SimulatorScripts, model: string): readonly ScriptRule[] {
  return scripts.get(model) ?? scripts.get('*') ?? [];
}

/** Replaces the placeholders in a script's text. */
function fillText(text: string, turn: TurnFacts): string {
  return text.replace(PLACEHOLDER, (_whole, name: string) =>
    name === 'tool_result' ? turn.toolResult : turn.lastUserText,
  );
}

/** Replaces the placeholders in the strings of `value` (recursively). */
function fillValue(value: unknown, turn: TurnFacts): unknown {
  if (typeof value === 'string') return fillText(value, turn);
  if (Array.isArray(value)) return value.map((item: unknown) => fillValue(item, turn));
  if (isRecord(value)) return fillRecord(value, turn);
  return value;
}

function fillRecord(record: Record<string, unknown>, turn: TurnFacts): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).map(([key, item]) => [key, fillValue(item, turn)]));
}

/** What the script decides for a request, or undefined to leave it to the default behaviour. */
export type ScriptDecision =
  | { readonly kind: 'call'; readonly tool: OfferedTool; readonly arguments: Record<string, unknown> | undefined }
  | { readonly kind: 'answer'; readonly text: string };

/** The first rule that holds and can act (a call needs a matching callable tool). */
export function decideByScript(
  rules: readonly ScriptRule[],
  callable: readonly OfferedTool[],
  turn: TurnFacts,
): ScriptDecision | undefined {
  for (const rule of rules) {
    if (rule.toolsOffered !== undefined && rule.toolsOffered !== callable.length > 0) continue;
    if (rule.lastRole !== undefined && rule.lastRole !== turn.lastRole) continue;
    if (rule.lastMessage !== undefined && !rule.lastMessage.test(turn.lastText)) continue;
    if (rule.action.kind === 'answer') return { kind: 'answer', text: fillText(rule.action.text, turn) };
    const pattern = rule.action.tool;
    const tool = callable.find((candidate) => pattern.test(candidate.name));
    if (tool !== undefined)
      return {
        kind: 'call',
        tool,
        arguments: rule.action.arguments === undefined ? undefined : fillRecord(rule.action.arguments, turn),
      };
  }
  return undefined;
}
