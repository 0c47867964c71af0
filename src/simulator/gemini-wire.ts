import type { ChatStreamEvents } from './chat-stream-events.js';
import { fnv1aHash } from './fnv1a-hash.js';
import type { GenerationControls, OfferedTool, OutputFormat, ToolChoice, TurnFacts } from './generation-controls.js';
import { messageText } from './message-text.js';
import { choiceOutputTokens, type ChoicePlan, type CompletionPlan } from './plan-completion.js';
import { REASONING_TOKENS_BY_EFFORT } from './plan-completion.js';
import { invalidRequest } from './protocol-errors.js';
import { reasoningTokensForBudget } from './anthropic-wire.js';
import { isRecord } from '../validation/is-record.js';

/**
 * The Gemini API as the simulator speaks it (provider-protocols 5): `thinkingConfig`
 * with a budget or a level (not both), `includeThoughts` deciding whether thought parts
 * come back (thinking is counted either way), `maxOutputTokens` shared by thoughts and
 * answer; replies as one `GenerateContentResponse` or as SSE events of new parts only,
 * with the finish reason and full usage on the last one and no end marker. Function
 * declarations are answered with whole `functionCall` parts, `candidateCount` with that
 * many candidates, `stopSequences` cut the answer, `responseMimeType: application/json`
 * gives a JSON answer (of `responseJsonSchema` / `responseSchema` when given).
 */

/** Gemini's own limits on `candidateCount` and `stopSequences`. */
const MAX_CANDIDATES = 8;
const MAX_STOP_SEQUENCES = 5;

/** What the simulator reads from a generateContent request. */
export interface GeminiRequest {
  model: string;
  /** Contents and system instruction as `{content}` records, for the seed and the prompt count. */
  messages: unknown[];
  maxTokens: number | undefined;
  reasoningTokens: number;
  includeThoughts: boolean;
  controls: GenerationControls;
}

const LEVEL_TOKENS: Readonly<Record<string, number>> = {
  MINIMAL: REASONING_TOKENS_BY_EFFORT.minimal,
  LOW: REASONING_TOKENS_BY_EFFORT.low,
  MEDIUM: REASONING_TOKENS_BY_EFFORT.medium,
  HIGH: REASONING_TOKENS_BY_EFFORT.high,
};

/** A Gemini `Content` as a `{content: [{type: "text", text}]}` record the simulator's tokenizer reads. */
function asMessage(content: unknown): unknown {
  const parts = isRecord(content) && Array.isArray(content.parts) ? content.parts : [];
  return {
    content: parts.flatMap((part) =>
      isRecord(part) && typeof part.text === 'string' ? [{ type: 'text', text: part.text }] : [],
    ),
  };
}

export function parseGeminiRequest(model: string, body: unknown): GeminiRequest {
  if (!isRecord(body)) throw invalidRequest('Invalid JSON payload received.');
  if (!Array.isArray(body.contents) || body.contents.length === 0)
    throw invalidRequest('* GenerateContentRequest.contents: contents is not specified');
  body.contents.forEach((content, index) => {
    if (
      !isRecord(content) ||
      (content.role !== undefined && content.role !== 'user' && content.role !== 'model') ||
      !Array.isArray(content.parts)
    ) {
      throw invalidRequest(
        `* GenerateContentRequest.contents[${index}]: a content needs parts and the role user or model`,
      );
    }
  });
  const generation = isRecord(body.generationConfig) ? body.generationConfig : {};
  const maxTokens = typeof generation.maxOutputTokens === 'number' ? generation.maxOutputTokens : undefined;
  const thinking = isRecord(generation.thinkingConfig) ? generation.thinkingConfig : {};
  if (thinking.thinkingBudget !== undefined && thinking.thinkingLevel !== undefined) {
    throw invalidRequest('You can only set only one of thinking budget and thinking level.');
  }
  let reasoningTokens = 0;
  if (typeof thinking.thinkingBudget === 'number') {
    reasoningTokens =
      thinking.thinkingBudget === -1
        ? REASONING_TOKENS_BY_EFFORT.medium
        : reasoningTokensForBudget(Math.max(0, thinking.thinkingBudget));
  } else if (typeof thinking.thinkingLevel === 'string') {
    const tokens = LEVEL_TOKENS[thinking.thinkingLevel.toUpperCase()];
    if (tokens === undefined)
      throw invalidRequest(
        `Invalid value at 'generation_config.thinking_config.thinking_level' (${thinking.thinkingLevel})`,
      );
    reasoningTokens = tokens;
  }
  const system = isRecord(body.systemInstruction) ? [asMessage(body.systemInstruction)] : [];
  return {
    model,
    messages: [...system, ...body.contents.map(asMessage)],
    maxTokens,
    reasoningTokens,
    includeThoughts: thinking.includeThoughts === true,
    controls: geminiControls(body, generation, body.contents),
  };
}

function readTools(value: unknown): OfferedTool[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter(isRecord)
    .flatMap((tool) => (Array.isArray(tool.functionDeclarations) ? tool.functionDeclarations : []))
    .flatMap((declaration) =>
      isRecord(declaration) && typeof declaration.name === 'string'
        ? [{ name: declaration.name, parameters: declaration.parametersJsonSchema ?? declaration.parameters }]
        : [],
    );
}

function readToolChoice(value: unknown): ToolChoice {
  const config = isRecord(value) && isRecord(value.functionCallingConfig) ? value.functionCallingConfig : {};
  const only = Array.isArray(config.allowedFunctionNames)
    ? config.allowedFunctionNames.filter((name): name is string => typeof name === 'string')
    : undefined;
  if (config.mode === 'NONE') return { mode: 'none' };
  if (config.mode === 'ANY' || config.mode === 'VALIDATED')
    return only === undefined ? { mode: 'required' } : { mode: 'required', only };
  return { mode: 'auto' };
}

function readFormat(generation: Record<string, unknown>): OutputFormat {
  if (generation.responseMimeType !== 'application/json') return { kind: 'text' };
  const schema = generation.responseJsonSchema ?? generation.responseSchema;
  return schema === undefined ? { kind: 'json_object' } : { kind: 'json_schema', schema };
}

/** A `functionResponse` as text: its lone `result` string, else its JSON. */
function functionResponseText(part: Record<string, unknown>): string {
  const response = isRecord(part.functionResponse) ? part.functionResponse.response : undefined;
  if (isRecord(response) && Object.keys(response).length === 1 && typeof response.result === 'string')
    return response.result;
  return JSON.stringify(response ?? {});
}

/** Facts about the end of `contents`: a user turn of `functionResponse` parts is a tool result. */
function geminiTurnFacts(contents: readonly unknown[]): TurnFacts {
  const turns = contents.filter(isRecord);
  const partsOf = (turn: Record<string, unknown> | undefined) =>
    Array.isArray(turn?.parts) ? turn.parts.filter(isRecord) : [];
  const last = turns[turns.length - 1];
  const results = partsOf(last).filter((part) => part.functionResponse !== undefined);
  const isToolResult = last?.role !== 'model' && results.length > 0;
  const lastUser = [...turns]
    .reverse()
    .find((turn) => turn.role !== 'model' && !partsOf(turn).some((part) => part.functionResponse !== undefined));
  const toolResult = results.map(functionResponseText).join('\n');
  const speaker = isToolResult ? 'tool' : last?.role === 'model' ? 'assistant' : 'user';
  return {
    lastRole: speaker,
    lastSpeaker: speaker,
    lastText: isToolResult ? toolResult : messageText(asMessage(last)),
    lastUserText: lastUser === undefined ? '' : messageText(asMessage(lastUser)),
    toolResult: isToolResult ? toolResult : '',
  };
}

function geminiControls(
  body: Record<string, unknown>,
  generation: Record<string, unknown>,
  contents: readonly unknown[],
): GenerationControls {
  const count = generation.candidateCount ?? 1;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > MAX_CANDIDATES) {
    throw invalidRequest(`* GenerationConfig.candidate_count: must be from 1 to ${MAX_CANDIDATES}`);
  }
  const stop = generation.stopSequences ?? [];
  if (!Array.isArray(stop) || stop.length > MAX_STOP_SEQUENCES || !stop.every((entry) => typeof entry === 'string')) {
    throw invalidRequest(`* GenerationConfig.stop_sequences: at most ${MAX_STOP_SEQUENCES} strings`);
  }
  return {
    tools: readTools(body.tools),
    toolChoice: readToolChoice(body.toolConfig),
    choiceCount: count,
    stop,
    format: readFormat(generation),
    topLogprobs: undefined,
    turn: geminiTurnFacts(contents),
  };
}

/** Identity of one simulated response. */
export interface GeminiIdentity {
  responseId: string;
  model: string;
}

function usageOf(plan: CompletionPlan): Record<string, number> {
  const reasoning = plan.choices.reduce((sum, choice) => sum + choice.reasoningTokens.length, 0);
  const candidates = plan.choices.reduce(
    (sum, choice) => sum + choiceOutputTokens(choice) - choice.reasoningTokens.length,
    0,
  );
  const usage: Record<string, number> = {
    promptTokenCount: plan.promptTokens,
    candidatesTokenCount: candidates,
    totalTokenCount: plan.promptTokens + candidates + reasoning,
  };
  if (reasoning > 0) usage.thoughtsTokenCount = reasoning;
  // Gemini counts cached tokens inside promptTokenCount and names them apart.
  if ((plan.cachedTokens ?? 0) > 0) usage.cachedContentTokenCount = plan.cachedTokens ?? 0;
  return usage;
}

function finishReasonOf(choice: ChoicePlan): string {
  // Gemini finishes with STOP also when it calls functions (provider-protocols 5.4).
  return choice.finishReason === 'length' ? 'MAX_TOKENS' : 'STOP';
}

function signatureOf(identity: GeminiIdentity, text: string): string {
  return Buffer.from(`gsig:${identity.model}:${fnv1aHash(text).toString(16)}`).toString('base64');
}

/** Function calls come back whole, arguments as an object and without an id (as the Gemini Developer API sends them). */
function functionCallParts(choice: ChoicePlan): Array<Record<string, unknown>> {
  return choice.toolCalls.map((call) => {
    const args: unknown = JSON.parse(call.arguments);
    return { functionCall: { name: call.name, args } };
  });
}

/** The non-streaming `GenerateContentResponse`: one candidate per choice. */
export function geminiResponseBody(plan: CompletionPlan, identity: GeminiIdentity, includeThoughts: boolean): unknown {
  const candidates = plan.choices.map((choice, index) => {
    const parts: unknown[] = [];
    if (includeThoughts && choice.reasoningTokens.length > 0)
      parts.push({ text: choice.reasoningTokens.join(''), thought: true });
    if (choice.contentTokens.length > 0) {
      const text = choice.contentTokens.join('');
      parts.push(
        choice.reasoningTokens.length > 0 ? { text, thoughtSignature: signatureOf(identity, text) } : { text },
      );
    }
    parts.push(...functionCallParts(choice));
    return { content: { role: 'model', parts }, finishReason: finishReasonOf(choice), index };
  });
  return {
    candidates,
    usageMetadata: usageOf(plan),
    modelVersion: identity.model,
    responseId: identity.responseId,
  };
}

/**
 * Stream events (`data: …` separated by CRLF CRLF, as Gemini sends them), candidate after
 * candidate: one event per thought token, per answer token and per function call, each
 * with only its new part; the first carries the prompt count, a candidate's last its
 * finish reason, the very last the full usage. No `[DONE]`.
 */
export function geminiStreamEvents(
  plan: CompletionPlan,
  identity: GeminiIdentity,
  includeThoughts: boolean,
): ChatStreamEvents {
  const events: string[] = [];
  plan.choices.forEach((choice, candidateIndex) => {
    const parts: Array<Record<string, unknown>> = [];
    if (includeThoughts) for (const token of choice.reasoningTokens) parts.push({ text: token, thought: true });
    choice.contentTokens.forEach((token, index) => {
      parts.push(
        index === 0 && choice.reasoningTokens.length > 0
          ? { text: token, thoughtSignature: signatureOf(identity, token) }
          : { text: token },
      );
    });
    parts.push(...functionCallParts(choice));
    const last = Math.max(parts.length, 1) - 1;
    for (let index = 0; index <= last; index++) {
      const part = parts[index];
      const candidate: Record<string, unknown> = {
        content: { role: 'model', parts: part === undefined ? [] : [part] },
        index: candidateIndex,
      };
      const chunk: Record<string, unknown> = { candidates: [candidate] };
      if (index === last) candidate.finishReason = finishReasonOf(choice);
      if (index === last && candidateIndex === plan.choices.length - 1) chunk.usageMetadata = usageOf(plan);
      else if (events.length === 0)
        chunk.usageMetadata = { promptTokenCount: plan.promptTokens, totalTokenCount: plan.promptTokens };
      chunk.modelVersion = identity.model;
      chunk.responseId = identity.responseId;
      events.push(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
    }
  });
  return { events, tokenCount: events.length };
}
