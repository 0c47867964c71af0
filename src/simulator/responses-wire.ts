import { randomBytes } from 'node:crypto';
import { ReasoningEnvelope } from '../front-doors/reasoning-envelope.js';
import type { OutputShaping } from '../front-doors/responses/output-items.js';
import { responseFromCompletion } from '../front-doors/responses/response-from-completion.js';
import { ResponseObject } from '../front-doors/responses/response-object.js';
import { ResponseStreamEvents } from '../front-doors/responses/response-stream-events.js';
import { ToolNames } from '../front-doors/responses/tool-names.js';
import type { ChatCompletion, Usage } from '../protocol/openai/chat-response-types.js';
import type { CreateResponseRequest } from '../front-doors/responses/create-response-schema.js';
import { chunksOf } from '../streaming/stream-events.js';
import type { ChatStreamEvents } from './chat-stream-events.js';
import { completionUsage, type CompletionUsage } from './completion-usage.js';
import { SimulatorError } from './simulator-error.js';
import { isRecord } from '../validation/is-record.js';

type Item = Record<string, unknown>;

/** The text of a Responses message's content (a string or parts). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (isRecord(part) && typeof part.text === 'string' ? part.text : '')).join('');
}

/**
 * A Responses API request (inbound-protocols 2.3) as the simulator's chat request: the
 * node plans its answer the same way for both APIs. Messages keep their text, function
 * calls and their outputs become tool calls and tool messages, function tools chat tools.
 * Items a real server keeps state for (`item_reference`, `previous_response_id`) are not
 * served: 400, as a server without that state answers.
 */
export function chatBodyOfResponsesRequest(body: unknown): Item {
  if (!isRecord(body)) throw new SimulatorError(400, 'The request body must be a JSON object.');
  if (body.previous_response_id !== undefined && body.previous_response_id !== null) {
    throw new SimulatorError(400, 'previous_response_id is not supported by the simulator.', {
      param: 'previous_response_id',
    });
  }
  const messages: Item[] = [];
  if (typeof body.instructions === 'string') messages.push({ role: 'system', content: body.instructions });
  const input = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : body.input;
  if (!Array.isArray(input)) throw new SimulatorError(400, "'input' must be a string or an array.", { param: 'input' });
  for (const item of input) {
    if (!isRecord(item)) continue;
    const type = item.type ?? 'message';
    if (type === 'message') messages.push({ role: item.role, content: textOf(item.content) });
    else if (type === 'function_call') {
      const call = { id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } };
      const last = messages[messages.length - 1];
      if (last?.role === 'assistant' && Array.isArray(last.tool_calls)) (last.tool_calls as Item[]).push(call);
      else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
    } else if (type === 'function_call_output') {
      messages.push({ role: 'tool', tool_call_id: item.call_id, content: textOf(item.output) });
    } else if (type === 'item_reference') {
      throw new SimulatorError(400, `Item with id '${String(item.id)}' not found.`, { param: 'input' });
    }
  }
  const tools = Array.isArray(body.tools)
    ? body.tools
        .filter((tool): tool is Item => isRecord(tool) && tool.type === 'function')
        .map((tool) => ({
          type: 'function',
          function: { name: tool.name, description: tool.description, parameters: tool.parameters },
        }))
    : [];
  const chat: Item = { model: body.model, messages, stream: body.stream === true };
  if (tools.length > 0) {
    chat.tools = tools;
    if (body.tool_choice !== undefined) chat.tool_choice = body.tool_choice;
  }
  if (typeof body.max_output_tokens === 'number') chat.max_tokens = body.max_output_tokens;
  const reasoning = body.reasoning;
  if (isRecord(reasoning) && typeof reasoning.effort === 'string') chat.reasoning_effort = reasoning.effort;
  return chat;
}

/** How the simulated Responses reply is shaped from the request. */
function replyParts(body: Item, requestNumber: number) {
  const id = `resp_${requestNumber.toString(16).padStart(24, '0')}`;
  const request = body as CreateResponseRequest;
  const object = new ResponseObject(id, Math.floor(Date.now() / 1000), String(body.model), request);
  const shaping: OutputShaping = {
    responseId: id,
    toolNames: new ToolNames(),
    summaryMode: isRecord(body.reasoning) && body.reasoning.summary !== undefined && body.reasoning.summary !== null,
    includeEncrypted: false,
    envelope: new ReasoningEnvelope(randomBytes(32)),
  };
  return { object, shaping };
}

/** A simulated Response for a chat completion the simulator planned. */
export function responsesBody(body: Item, requestNumber: number, completion: unknown, usage: CompletionUsage): unknown {
  const { object, shaping } = replyParts(body, requestNumber);
  return responseFromCompletion(completion as ChatCompletion, usage as unknown as Usage, object, shaping, undefined);
}

/** The Responses events for the chat events the simulator planned, event for event (their pacing kept). */
export function responsesStreamEvents(
  body: Item,
  requestNumber: number,
  chat: ChatStreamEvents,
  usage: CompletionUsage,
): ChatStreamEvents {
  const { object, shaping } = replyParts(body, requestNumber);
  const mapper = new ResponseStreamEvents(object, shaping, () => undefined);
  const events = chat.events.map((event, index) => {
    const chunks = chunksOf({ form: 'text', text: event });
    return index === chat.events.length - 1
      ? mapper.end(chunks, usage as unknown as Usage).events
      : mapper.write(chunks);
  });
  return { events, tokenCount: chat.tokenCount };
}

export { completionUsage };
