import type { LeftOut } from '../../billing/unresolved-inputs.js';
import { invalidParameter } from '../../errors/gateway-error.js';
import type { ChatMessage, ChatRequest } from '../../protocol/openai/chat-request-schema.js';
import type { CreateResponseRequest } from './create-response-schema.js';
import { inputToMessages, type LocatedItem } from './input-to-messages.js';
import type { ReasoningEnvelope } from '../reasoning-envelope.js';
import type { ToolNames } from './tool-names.js';
import { toolsToChat, type LocatedTool } from './tools-to-chat.js';

type Item = Record<string, unknown>;

/** What a Responses request brings besides its own body. */
export interface ConversationContext {
  /** The stored conversation before this request (`previous_response_id`), oldest first. */
  readonly history: readonly Item[];
  /** Stored items an `item_reference` may name, by id. */
  readonly references: ReadonlyMap<string, Item>;
  readonly envelope: ReasoningEnvelope;
  /** Whether a node may be given back reasoning it made: it serves the model and is available (it is then tried first). */
  readonly readsReasoning: (node: string) => boolean;
  /**
   * A node of the model serves the Responses API natively (and gets the request as it
   * came): item references it may hold need not be stored here, and a `tool_choice`
   * forcing a hosted tool is its to honour; the translation leaves both out.
   */
  readonly servedNatively?: boolean;
}

/** A Responses request as the pipeline takes it, with what the reply mapping needs to know. */
export interface TranslatedResponsesRequest {
  readonly chat: ChatRequest;
  /** The client's custom and namespaced tools, to give their calls back in their shape. */
  readonly toolNames: ToolNames;
  /** The node that made the reasoning replayed in the input, to be tried first (PRODUCT.md decision 17). */
  readonly reasoningNode: string | undefined;
  /** What `chat` leaves out that a native node is sent: the reservation prices it (GatewayRequest.leftOut). */
  readonly leftOut: LeftOut;
}

/**
 * Maps a Responses request to the internal chat request (inbound-protocols 3.5):
 * `instructions` first as a system message, then the stored conversation, then `input`;
 * tools per PRODUCT.md decision 15; the sampling and output settings by their chat names.
 * Gateway-owned fields (`store`, `metadata`, `include`, `truncation`) stay with the door.
 */
export function toChatRequest(
  request: CreateResponseRequest,
  conversation: ConversationContext,
): TranslatedResponsesRequest {
  const located: LocatedItem[] = conversation.history.map((item) => ({ item, path: 'previous_response_id' }));
  if (typeof request.input === 'string') {
    located.push({ item: { type: 'message', role: 'user', content: request.input }, path: 'input' });
  } else {
    request.input.forEach((item, index) => located.push({ item, path: `input[${index}]` }));
  }
  const { messages, reasoningNode, leftOut } = inputToMessages(
    located,
    conversation.references,
    conversation.envelope,
    conversation.readsReasoning,
    conversation.servedNatively === true,
  );
  if (typeof request.instructions === 'string' && request.instructions !== '') {
    const system: ChatMessage = { role: 'system', content: request.instructions };
    messages.unshift(system);
  }
  if (messages.length === 0) throw invalidParameter('input', 'at_least_one_message');
  const tools = toolsToChat(
    request.tools,
    request.tool_choice,
    conversation.servedNatively === true,
    additionalTools(located),
  );
  const chat: ChatRequest = { model: request.model, messages };
  if (tools.tools !== undefined) {
    chat.tools = tools.tools;
    if (tools.toolChoice !== undefined) chat.tool_choice = tools.toolChoice;
    if (typeof request.parallel_tool_calls === 'boolean') chat.parallel_tool_calls = request.parallel_tool_calls;
  }
  const effort = request.reasoning?.effort;
  if (effort !== undefined && effort !== null) chat.reasoning_effort = effort;
  const format = responseFormat(request.text?.format);
  if (format !== undefined) chat.response_format = format;
  if (typeof request.max_output_tokens === 'number') chat.max_completion_tokens = request.max_output_tokens;
  if (typeof request.temperature === 'number') chat.temperature = request.temperature;
  if (typeof request.top_p === 'number') chat.top_p = request.top_p;
  if (typeof request.top_logprobs === 'number' && request.include?.includes('message.output_text.logprobs') === true) {
    chat.logprobs = true;
    chat.top_logprobs = request.top_logprobs;
  }
  for (const field of ['prompt_cache_key', 'safety_identifier', 'user'] as const) {
    const value = request[field];
    if (typeof value === 'string') chat[field] = value;
  }
  if (request.stream === true) {
    chat.stream = true;
    chat.stream_options = { include_usage: true };
  }
  return { chat, toolNames: tools.names, reasoningNode, leftOut };
}

/**
 * The tools of `additional_tools` input items (Codex CLI sends its tools so, `role:
 * "developer"`, with no top-level `tools`): OpenAI adds them to the offer, so the translation does.
 */
function additionalTools(located: readonly LocatedItem[]): LocatedTool[] {
  return located.flatMap(({ item, path }) => {
    if (item.type !== 'additional_tools') return [];
    if (!Array.isArray(item.tools)) throw invalidParameter(`${path}.tools`, 'of_type', { types: 'array' });
    return (item.tools as unknown[]).map((tool, index) => {
      if (tool === null || typeof tool !== 'object' || typeof (tool as Item).type !== 'string') {
        throw invalidParameter(`${path}.tools[${index}].type`, 'required');
      }
      return { tool: tool as Item, path: `${path}.tools[${index}]` };
    });
  });
}

/** `text.format` as `response_format` (rule B10); undefined for plain text. */
function responseFormat(format: Item | null | undefined): ChatRequest['response_format'] {
  if (format === undefined || format === null || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json_object' };
  if (format.type === 'json_schema') {
    if (typeof format.name !== 'string' || format.name === '') {
      throw invalidParameter('text.format.name', 'required_for_json_schema');
    }
    if (format.schema === null || typeof format.schema !== 'object') {
      throw invalidParameter('text.format.schema', 'must_be_json_schema');
    }
    const jsonSchema: Item = { name: format.name, schema: format.schema };
    if (typeof format.strict === 'boolean') jsonSchema.strict = format.strict;
    if (typeof format.description === 'string') jsonSchema.description = format.description;
    const schemaFormat = { type: 'json_schema', json_schema: jsonSchema };
    return schemaFormat;
  }
  throw invalidParameter('text.format.type', 'format_unsupported', { type: String(format.type) });
}
