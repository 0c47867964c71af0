import type { ChatRequest } from '../protocol/openai/chat-request-schema.js';
import { isRecord } from '../validation/is-record.js';

/** One message part in the GenAI semantic conventions' shape (`gen_ai.input.messages`, `gen_ai.output.messages`). */
type MessagePart =
  | { readonly type: 'text'; readonly content: string }
  | { readonly type: 'tool_call'; readonly id?: string; readonly name?: string; readonly arguments?: string }
  | { readonly type: 'tool_call_response'; readonly id?: string; readonly response: string };

interface CapturedMessage {
  readonly role: string;
  readonly parts: MessagePart[];
  readonly finish_reason?: string;
}

/**
 * Message text for spans, only with `telemetry.capture_content: true`: at most `maxChars`
 * characters of text over all parts of one attribute; past that, text is cut and the
 * messages after it are left out.
 */
class CharacterBudget {
  constructor(private left: number) {}

  take(text: string): string | undefined {
    if (this.left <= 0) return undefined;
    const taken = text.length > this.left ? text.slice(0, this.left) : text;
    this.left -= taken.length;
    return taken;
  }
}

/** `gen_ai.input.messages` of a chat request, as JSON text. */
export function inputMessages(request: ChatRequest, maxChars: number): string {
  const budget = new CharacterBudget(maxChars);
  const messages: CapturedMessage[] = [];
  for (const message of request.messages) {
    const parts: MessagePart[] = [];
    if (message.role === 'tool') {
      const response = budget.take(textOf(message.content));
      if (response !== undefined)
        parts.push({ type: 'tool_call_response', id: stringOr(message.tool_call_id), response });
    } else {
      addText(parts, textOf(message.content), budget);
      addToolCalls(parts, message.tool_calls, budget);
    }
    if (parts.length === 0) break;
    messages.push({ role: message.role, parts });
  }
  return JSON.stringify(messages);
}

/**
 * `gen_ai.output.messages` of a JSON reply, as JSON text: a chat.completion's choices, an
 * Anthropic message's content blocks, or a Responses response's output messages.
 */
export function outputMessages(body: string, maxChars: number): string | undefined {
  let reply: unknown;
  try {
    reply = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!isRecord(reply)) return undefined;
  const budget = new CharacterBudget(maxChars);
  const messages: CapturedMessage[] = [];
  if (Array.isArray(reply.choices)) {
    for (const choice of reply.choices) {
      if (!isRecord(choice) || !isRecord(choice.message)) continue;
      const parts: MessagePart[] = [];
      addText(parts, textOf(choice.message.content), budget);
      addToolCalls(parts, choice.message.tool_calls, budget);
      messages.push({ role: 'assistant', parts, finish_reason: stringOr(choice.finish_reason) });
    }
  } else if (Array.isArray(reply.content)) {
    messages.push({
      role: 'assistant',
      parts: blockParts(reply.content, budget),
      finish_reason: stringOr(reply.stop_reason),
    });
  } else if (Array.isArray(reply.output)) {
    const parts: MessagePart[] = [];
    for (const item of reply.output) {
      if (!isRecord(item)) continue;
      if (item.type === 'message' && Array.isArray(item.content)) parts.push(...blockParts(item.content, budget));
      if (item.type === 'function_call') {
        const call = toolCall(stringOr(item.call_id), stringOr(item.name), stringOr(item.arguments), budget);
        if (call !== undefined) parts.push(call);
      }
    }
    messages.push({ role: 'assistant', parts });
  }
  return JSON.stringify(messages);
}

/** Text of a message's `content`: a string, or the text of its text parts. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let text = '';
  for (const part of content) if (isRecord(part) && typeof part.text === 'string') text += part.text;
  return text;
}

/** Anthropic content blocks and Responses output content: text and tool calls. */
function blockParts(blocks: readonly unknown[], budget: CharacterBudget): MessagePart[] {
  const parts: MessagePart[] = [];
  for (const block of blocks) {
    if (!isRecord(block)) continue;
    if (typeof block.text === 'string') addText(parts, block.text, budget);
    else if (block.type === 'tool_use') {
      const call = toolCall(stringOr(block.id), stringOr(block.name), JSON.stringify(block.input ?? {}), budget);
      if (call !== undefined) parts.push(call);
    }
  }
  return parts;
}

function addText(parts: MessagePart[], text: string, budget: CharacterBudget): void {
  if (text === '') return;
  const content = budget.take(text);
  if (content !== undefined) parts.push({ type: 'text', content });
}

function addToolCalls(parts: MessagePart[], calls: unknown, budget: CharacterBudget): void {
  if (!Array.isArray(calls)) return;
  for (const call of calls) {
    if (!isRecord(call) || !isRecord(call.function)) continue;
    const part = toolCall(stringOr(call.id), stringOr(call.function.name), stringOr(call.function.arguments), budget);
    if (part !== undefined) parts.push(part);
  }
}

function toolCall(
  id: string | undefined,
  name: string | undefined,
  args: string | undefined,
  budget: CharacterBudget,
): MessagePart | undefined {
  const taken = budget.take(args ?? '');
  return taken === undefined ? undefined : { type: 'tool_call', id, name, arguments: taken };
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
