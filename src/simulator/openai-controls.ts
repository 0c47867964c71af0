import type {
  GenerationControls,
  OfferedTool,
  OutputFormat,
  ToolChoice,
  TurnFacts,
  TurnRole,
} from './generation-controls.js';
import { messageText } from './message-text.js';
import { SimulatorError } from './simulator-error.js';
import { isRecord } from '../validation/is-record.js';

/** OpenAI's own limits on `n`, `stop` and `top_logprobs` (provider-protocols 2.2). */
const MAX_CHOICES = 128;
const MAX_STOP_SEQUENCES = 4;
const MAX_TOP_LOGPROBS = 20;

function invalid(message: string, param: string): SimulatorError {
  return new SimulatorError(400, message, { param, code: 'invalid_value' });
}

function readTools(value: unknown): OfferedTool[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalid("Invalid 'tools': expected an array.", 'tools');
  return value.flatMap((tool, index): OfferedTool[] => {
    if (!isRecord(tool)) throw invalid(`Invalid 'tools[${index}]': expected an object.`, `tools[${index}]`);
    if (tool.type !== 'function') return [];
    const fn = isRecord(tool.function) ? tool.function : {};
    if (typeof fn.name !== 'string' || fn.name === '')
      throw invalid(`Missing required parameter: 'tools[${index}].function.name'.`, `tools[${index}].function.name`);
    return [{ name: fn.name, parameters: fn.parameters }];
  });
}

function readToolChoice(value: unknown): ToolChoice {
  if (value === 'none' || value === 'required' || value === 'auto') return { mode: value };
  if (
    isRecord(value) &&
    value.type === 'function' &&
    isRecord(value.function) &&
    typeof value.function.name === 'string'
  ) {
    return { mode: 'required', only: [value.function.name] };
  }
  if (isRecord(value) && value.type === 'allowed_tools' && isRecord(value.allowed_tools)) {
    const allowed = value.allowed_tools;
    const names = Array.isArray(allowed.tools)
      ? allowed.tools.flatMap((tool) =>
          isRecord(tool) && isRecord(tool.function) && typeof tool.function.name === 'string'
            ? [tool.function.name]
            : [],
        )
      : [];
    return { mode: allowed.mode === 'required' ? 'required' : 'auto', only: names };
  }
  return { mode: 'auto' };
}

function readStop(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  const stop = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(stop) || !stop.every((entry) => typeof entry === 'string') || stop.length > MAX_STOP_SEQUENCES) {
    throw invalid(`Invalid 'stop': expected a string or up to ${MAX_STOP_SEQUENCES} strings.`, 'stop');
  }
  return stop;
}

function readFormat(value: unknown): OutputFormat {
  if (!isRecord(value) || value.type === 'text') return { kind: 'text' };
  if (value.type === 'json_object') return { kind: 'json_object' };
  if (value.type === 'json_schema') {
    const schema = isRecord(value.json_schema) ? value.json_schema.schema : undefined;
    return schema === undefined ? { kind: 'json_object' } : { kind: 'json_schema', schema };
  }
  throw invalid(`Invalid 'response_format.type': expected text, json_object or json_schema.`, 'response_format.type');
}

function readInteger(body: Record<string, unknown>, field: string, min: number, max: number): number | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(`Invalid '${field}': expected an integer from ${min} to ${max}.`, field);
  }
  return value;
}

function roleOf(message: unknown): TurnRole {
  const role = isRecord(message) ? message.role : undefined;
  if (role === 'tool' || role === 'function') return 'tool';
  if (role === 'system' || role === 'developer') return 'system';
  return role === 'assistant' ? 'assistant' : 'user';
}

/** Facts about the end of an OpenAI `messages` array. */
export function openaiTurnFacts(messages: readonly unknown[]): TurnFacts {
  const lastRole = messages.length === 0 ? 'user' : roleOf(messages[messages.length - 1]);
  let end = messages.length - 1;
  while (end >= 0 && roleOf(messages[end]) === 'system') end--;
  const speaker = end < 0 ? 'user' : roleOf(messages[end]);
  const results: string[] = [];
  for (let index = end; index >= 0 && roleOf(messages[index]) === 'tool'; index--)
    results.unshift(messageText(messages[index]));
  const lastUser = [...messages].reverse().find((message) => roleOf(message) === 'user');
  return {
    lastRole,
    lastSpeaker: speaker === 'system' ? 'user' : speaker,
    lastText: messageText(messages[messages.length - 1]),
    lastUserText: lastUser === undefined ? '' : messageText(lastUser),
    toolResult: results.join('\n'),
  };
}

/** The generation controls of an OpenAI chat-completions body (already checked by parseChatRequest). */
export function openaiControls(request: unknown, messages: readonly unknown[]): GenerationControls {
  const body = isRecord(request) ? request : {};
  const logprobs = body.logprobs === true;
  const top = readInteger(body, 'top_logprobs', 0, MAX_TOP_LOGPROBS);
  if (top !== undefined && !logprobs)
    throw invalid("Invalid 'top_logprobs': 'logprobs' must be true to use it.", 'top_logprobs');
  return {
    tools: readTools(body.tools),
    toolChoice: readToolChoice(body.tool_choice),
    choiceCount: readInteger(body, 'n', 1, MAX_CHOICES) ?? 1,
    stop: readStop(body.stop),
    format: readFormat(body.response_format),
    topLogprobs: logprobs ? (top ?? 0) : undefined,
    turn: openaiTurnFacts(messages),
  };
}
