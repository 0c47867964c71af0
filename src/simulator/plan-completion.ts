import { DeterministicText } from './deterministic-text.js';
import { fnv1aHash } from './fnv1a-hash.js';
import { defaultDecision } from './default-decision.js';
import { callableTools, DEFAULT_CONTROLS, type GenerationControls } from './generation-controls.js';
import { messageText } from './message-text.js';
import { mulberry32 } from './mulberry32.js';
import type { ChatRequest, ReasoningEffort } from './parse-chat-request.js';
import { schemaValue } from './schema-value.js';
import { countPromptTokens } from './simulated-tokenizer.js';
import { decideByScript, type ScriptDecision } from './simulator-script.js';
import type { ScriptRule } from '../config/simulator-scripts.js';
import { splitArguments, splitTokens } from './split-tokens.js';
import { tokenLogprobs, type TokenLogprob } from './token-logprobs.js';

/** Reasoning tokens produced per effort ("none" produces no reasoning). */
export const REASONING_TOKENS_BY_EFFORT: Readonly<Record<ReasoningEffort, number>> = {
  none: 0,
  minimal: 8,
  low: 16,
  medium: 48,
  high: 128,
  xhigh: 256,
  max: 512,
};

const MIN_ANSWER_TOKENS = 12;
const MAX_ANSWER_TOKENS = 48;
/** Salt that gives the reasoning text its own random stream, independent of the answer's. */
const REASONING_SEED_SALT = 0x9e3779b9;
/** Salt for the tool-argument and JSON values' random stream. */
const VALUE_SEED_SALT = 0x85ebca6b;

/** One tool call of a planned answer; `argumentChunks` join to `arguments` (a JSON object's text). */
export interface PlannedToolCall {
  /** Unique per request, choice and call; each protocol prefixes it its own way. */
  id: string;
  name: string;
  arguments: string;
  argumentChunks: readonly string[];
}

/** What one choice (OpenAI `n`, Gemini `candidateCount`) emits. */
export interface ChoicePlan {
  reasoningTokens: readonly string[];
  contentTokens: readonly string[];
  toolCalls: readonly PlannedToolCall[];
  finishReason: 'stop' | 'length' | 'tool_calls';
  /** The stop sequence that ended the answer, when one did. */
  stopSequence: string | undefined;
  /** A logprob entry per content token, when the request asked for logprobs. */
  logprobs: readonly TokenLogprob[] | undefined;
}

/**
 * Everything one simulated completion emits, decided before the first byte is written.
 * The first choice's fields are at the top (protocols with one choice read only those);
 * `choices` holds every choice, the first included.
 */
export interface CompletionPlan extends ChoicePlan {
  promptTokens: number;
  /** Of the prompt tokens, those the node found in its prefix cache (absent: none). */
  cachedTokens?: number;
  choices: readonly ChoicePlan[];
}

/** The planning input: the request's text side plus its generation controls. */
export type PlanRequest = Pick<ChatRequest, 'model' | 'messages' | 'maxTokens' | 'reasoningEffort' | 'reasoningTokens'>;

/** Seed for a request: FNV-1a of the model name and every message's text. */
export function requestSeed(request: Pick<ChatRequest, 'model' | 'messages'>): number {
  return fnv1aHash([request.model, ...request.messages.map(messageText)].join('\u0000'));
}

/** Output tokens of a choice: reasoning, answer, and one per streamed piece of tool arguments. */
export function choiceOutputTokens(choice: ChoicePlan): number {
  return (
    choice.reasoningTokens.length +
    choice.contentTokens.length +
    choice.toolCalls.reduce((sum, call) => sum + call.argumentChunks.length, 0)
  );
}

/** Seed of choice `index`: the request's for the first, a distinct one for each other. */
function choiceSeed(seed: number, index: number): number {
  return index === 0 ? seed : fnv1aHash(`${seed}:choice:${index}`);
}

/** Cuts the tokens before the earliest stop sequence; undefined when none occurs. */
function cutAtStop(
  tokens: readonly string[],
  stop: readonly string[],
): { tokens: string[]; sequence: string } | undefined {
  const text = tokens.join('');
  let earliest: { at: number; sequence: string } | undefined;
  for (const sequence of stop) {
    const at = sequence === '' ? -1 : text.indexOf(sequence);
    if (at >= 0 && (earliest === undefined || at < earliest.at)) earliest = { at, sequence };
  }
  if (earliest === undefined) return undefined;
  const kept: string[] = [];
  let end = 0;
  for (const token of tokens) {
    if (end + token.length <= earliest.at) kept.push(token);
    else if (end < earliest.at) kept.push(token.slice(0, earliest.at - end));
    end += token.length;
  }
  return { tokens: kept, sequence: earliest.sequence };
}

/** The answer's text tokens before the cap: scripted text, a JSON value, or seeded prose. */
function answerTokens(decision: ScriptDecision | undefined, controls: GenerationControls, seed: number): string[] {
  if (decision?.kind === 'answer') return splitTokens(decision.text);
  const wanted = MIN_ANSWER_TOKENS + (seed % (MAX_ANSWER_TOKENS - MIN_ANSWER_TOKENS + 1));
  const format = controls.format;
  if (format.kind === 'json_object')
    return splitTokens(JSON.stringify({ answer: new DeterministicText(seed).tokens(wanted).join('') }));
  if (format.kind === 'json_schema')
    return splitTokens(JSON.stringify(schemaValue(format.schema, mulberry32((seed ^ VALUE_SEED_SALT) >>> 0))));
  return new DeterministicText(seed).tokens(wanted);
}

function planChoice(
  request: PlanRequest,
  controls: GenerationControls,
  seed: number,
  index: number,
  decision: ScriptDecision | undefined,
): ChoicePlan {
  const cap = request.maxTokens ?? Number.POSITIVE_INFINITY;
  const wantedReasoning =
    request.reasoningTokens ??
    (request.reasoningEffort === undefined ? 0 : REASONING_TOKENS_BY_EFFORT[request.reasoningEffort]);
  const reasoningCount = Math.min(wantedReasoning, cap);
  const reasoningTokens =
    reasoningCount === 0
      ? []
      : new DeterministicText((seed ^ REASONING_SEED_SALT) >>> 0).tokens(wantedReasoning).slice(0, reasoningCount);

  if (decision?.kind === 'call') {
    const value =
      decision.arguments ?? schemaValue(decision.tool.parameters, mulberry32((seed ^ VALUE_SEED_SALT) >>> 0));
    // Arguments are an object in every protocol (Anthropic `input`, Gemini `args`), whatever the schema says.
    const text = JSON.stringify(typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {});
    const call = {
      id: `sim${fnv1aHash(`${seed}:call:${index}`).toString(16)}`,
      name: decision.tool.name,
      arguments: text,
      argumentChunks: splitArguments(text),
    };
    return {
      reasoningTokens,
      contentTokens: [],
      toolCalls: [call],
      finishReason: 'tool_calls',
      stopSequence: undefined,
      logprobs: undefined,
    };
  }

  const wanted = answerTokens(decision, controls, seed);
  const answerCount = Math.min(wanted.length, cap - reasoningCount);
  let contentTokens = wanted.slice(0, answerCount);
  let finishReason: ChoicePlan['finishReason'] =
    reasoningCount < wantedReasoning || answerCount < wanted.length ? 'length' : 'stop';
  const cut = cutAtStop(contentTokens, controls.stop);
  if (cut !== undefined) {
    contentTokens = cut.tokens;
    finishReason = 'stop';
  }
  return {
    reasoningTokens,
    contentTokens,
    toolCalls: [],
    finishReason,
    stopSequence: cut?.sequence,
    logprobs: controls.topLogprobs === undefined ? undefined : tokenLogprobs(contentTokens, seed, controls.topLogprobs),
  };
}

/**
 * Decides the reasoning, answer and tool calls of a request, deterministically. A script
 * rule that holds decides first; otherwise `default-decision.ts` (a tool is called when the
 * tool choice requires one or the user's message asks for one it can satisfy; a tool result
 * is quoted); otherwise the answer is prose, or JSON for a JSON output format. Reasoning comes first and, as with OpenAI's
 * `max_completion_tokens`, shares the cap with the answer; stop sequences cut the answer.
 */
export function planCompletion(
  request: PlanRequest,
  controls: GenerationControls = DEFAULT_CONTROLS,
  script: readonly ScriptRule[] = [],
): CompletionPlan {
  const seed = requestSeed(request);
  const callable = callableTools(controls);
  const decision =
    decideByScript(script, callable, controls.turn) ??
    defaultDecision(callable, controls, mulberry32((seed ^ VALUE_SEED_SALT) >>> 0));
  const first = planChoice(request, controls, choiceSeed(seed, 0), 0, decision);
  const choices: ChoicePlan[] = [first];
  for (let index = 1; index < controls.choiceCount; index++) {
    choices.push(planChoice(request, controls, choiceSeed(seed, index), index, decision));
  }
  return { ...first, promptTokens: countPromptTokens(request.messages), choices };
}
