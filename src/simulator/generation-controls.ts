/**
 * What a request asks of the answer beyond its messages, read from any of the three
 * protocols into one shape: the tools offered and the tool choice, the number of choices,
 * stop sequences, the output format, logprobs, and facts about the last turn that the
 * default behaviour and scripts (`simulator-script.ts`) decide on.
 */

/** A function tool the client offers; `parameters` is its JSON schema (may be undefined). */
export interface OfferedTool {
  readonly name: string;
  readonly parameters: unknown;
}

/**
 * The tool choice: `auto` may call, `required` must call, `none` must not; `only` narrows
 * the callable tools (OpenAI `{type:"function"}`, Anthropic `{type:"tool"}`, Gemini `allowedFunctionNames`).
 */
export interface ToolChoice {
  readonly mode: 'auto' | 'required' | 'none';
  readonly only?: readonly string[];
}

/** The answer's format: prose, any JSON object, or a value of a JSON schema. */
export type OutputFormat =
  | { readonly kind: 'text' }
  | { readonly kind: 'json_object' }
  | { readonly kind: 'json_schema'; readonly schema: unknown };

/** Roles of the last turn as every protocol can express them (a tool result is `tool`). */
export type TurnRole = 'user' | 'assistant' | 'tool' | 'system';

/** Facts about the conversation's end. */
export interface TurnFacts {
  readonly lastRole: TurnRole;
  /**
   * Who spoke last, system messages aside (an agent may end its request with one, e.g. Claude
   * Code's list of agent types after a tool result): whether the model answers the user or a tool.
   */
  readonly lastSpeaker: Exclude<TurnRole, 'system'>;
  /** Text of the last message, whatever its role. */
  readonly lastText: string;
  /** Text of the last user message ("" when none). */
  readonly lastUserText: string;
  /** Text of the trailing tool results (joined by "\n") when the last speaker is a tool, else "". */
  readonly toolResult: string;
}

/** Every control, with the values a request that names none gets. */
export interface GenerationControls {
  readonly tools: readonly OfferedTool[];
  readonly toolChoice: ToolChoice;
  /** OpenAI `n`, Gemini `candidateCount`. */
  readonly choiceCount: number;
  readonly stop: readonly string[];
  readonly format: OutputFormat;
  /** With OpenAI `logprobs: true`: how many `top_logprobs` per token (0 = none); undefined = no logprobs. */
  readonly topLogprobs: number | undefined;
  readonly turn: TurnFacts;
}

/** The controls of a request that asks for nothing special. */
export const DEFAULT_CONTROLS: GenerationControls = {
  tools: [],
  toolChoice: { mode: 'auto' },
  choiceCount: 1,
  stop: [],
  format: { kind: 'text' },
  topLogprobs: undefined,
  turn: { lastRole: 'user', lastSpeaker: 'user', lastText: '', lastUserText: '', toolResult: '' },
};

/** The tools that may be called under the tool choice, in offered order. */
export function callableTools(controls: Pick<GenerationControls, 'tools' | 'toolChoice'>): readonly OfferedTool[] {
  const { mode, only } = controls.toolChoice;
  if (mode === 'none') return [];
  return only === undefined ? controls.tools : controls.tools.filter((tool) => only.includes(tool.name));
}
