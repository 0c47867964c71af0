import { createHash } from 'node:crypto';
import type { LeftOut } from '../../billing/unresolved-inputs.js';
import type { ChatMessage, ChatRequest } from '../../protocol/openai/chat-request-schema.js';
import { invalidParameter, invalidValue } from '../../errors/gateway-error.js';
import { isRecord } from '../../validation/is-record.js';
import type { MessagesBlock, MessagesMessage, MessagesRequest } from './messages-request-schema.js';
import type { ThinkingSignatures } from './thinking-signatures.js';

/** A Messages request in the pipeline's form, and what the door read from it. */
export interface TranslatedMessagesRequest {
  readonly chat: ChatRequest;
  /** Where the client set the reasoning effort, if it did. */
  readonly effortParam: string | undefined;
  /** The node that made the reasoning the history carries back (its newest envelope), if any. */
  readonly affinityNode: string | undefined;
  /** The request marks prompt-cache breakpoints, which `chat` leaves out (an Anthropic node reached natively gets them). */
  readonly cacheBreakpoints: boolean;
}

/** `safety_identifier` / `user` takes at most 64 characters (rule A19): longer ids are hashed. */
const MAX_USER_CHARS = 64;
/** Chat-completions takes at most four stop sequences. */
const MAX_STOP_SEQUENCES = 4;
/** The text a tool message keeps when its result was only images (rule A12). */
const IMAGES_PLACEHOLDER = '(the result is in the images that follow)';

type Part = { type: string } & Record<string, unknown>;

/** 400 naming a field that asks for something a chat-completions request cannot carry. */
function cannotCarry(param: string, what: string): never {
  throw invalidParameter(param, 'not_for_this_node', { what });
}

/** A content block: a record with a string `type`. */
function isBlock(value: unknown): value is MessagesBlock {
  return isRecord(value) && typeof value.type === 'string';
}

/** The value when it is an array. */
function arrayOf(value: unknown): readonly unknown[] | undefined {
  return Array.isArray(value) ? value : undefined;
}

function blocksOf(content: string | MessagesBlock[]): MessagesBlock[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return content;
}

function textOf(block: MessagesBlock, param: string): string {
  if (typeof block.text !== 'string') throw invalidValue(`${param}.text`, 'must_be_string');
  return block.text;
}

/**
 * An Anthropic Messages request → the internal chat-completions request
 * (inbound-protocols 3.1, PRODUCT.md decision 15). Translated: system, messages (mid-turn
 * system messages in place), images, documents (PDF as a `file` part, text inline), tools
 * and `tool_choice`, `tool_result` blocks ↔ `tool` messages (every block, images after
 * them in a user message), thinking ↔ effort or budget, stop sequences, sampling. Hints the
 * chat form has no place for (`cache_control`, `context_management`, `top_k`,
 * `service_tier`, …) are dropped; server tools are withdrawn from the offer; a demand it
 * cannot carry (a server-tool result, a file by id, forcing a withdrawn tool) is a 400
 * naming it. Thinking blocks go back to the node that made them when they carry this
 * gateway's envelope (3.8); any other thinking is for Anthropic nodes only and is dropped.
 */
export function toChatRequest(request: MessagesRequest, envelopes: ThinkingSignatures): TranslatedMessagesRequest {
  const messages: ChatMessage[] = [];
  let affinityNode: string | undefined;
  const system = systemMessage(request.system);
  if (system !== undefined) messages.push(system);
  request.messages.forEach((message, index) => {
    // A turn of plain text, the usual one, is one chat message as it is (an empty one, none).
    if (typeof message.content === 'string' && message.role !== 'system') {
      if (message.content !== '') messages.push({ role: message.role, content: message.content });
      return;
    }
    const param = `messages[${index}]`;
    if (message.role === 'system') {
      messages.push({ role: 'system', content: systemContent(blocksOf(message.content), `${param}.content`) });
    } else if (message.role === 'user') {
      messages.push(...userMessages(message, param));
    } else {
      const { chat, node } = assistantMessage(message, param, envelopes);
      if (node !== undefined) affinityNode = node;
      if (chat !== undefined) messages.push(chat);
    }
  });

  const chat: ChatRequest = { model: request.model, messages, max_tokens: request.max_tokens };
  if (request.stream === true) {
    chat.stream = true;
    chat.stream_options = { include_usage: true };
  }
  if (typeof request.temperature === 'number') chat.temperature = request.temperature;
  if (typeof request.top_p === 'number') chat.top_p = request.top_p;
  const stop = request.stop_sequences ?? undefined;
  if (stop !== undefined && stop.length > 0) {
    if (stop.length > MAX_STOP_SEQUENCES)
      cannotCarry('stop_sequences', `more than ${MAX_STOP_SEQUENCES} stop sequences`);
    chat.stop = stop;
  }
  const userId = request.metadata?.user_id;
  if (typeof userId === 'string' && userId !== '')
    chat.user =
      userId.length <= MAX_USER_CHARS
        ? userId
        : createHash('sha256').update(userId).digest('hex').slice(0, MAX_USER_CHARS);
  const effortParam = applyThinking(request, chat);
  applyTools(request, chat);
  applyFormat(request, chat);
  if (request.container !== undefined && request.container !== null)
    cannotCarry('container', 'a code-execution container');
  // The markers are dropped here, but an Anthropic node gets them: the reservation must see them.
  return { chat, effortParam, affinityNode, cacheBreakpoints: marksCache(request) };
}

/** Whether the request marks a prompt-cache breakpoint anywhere: top level, system, message blocks, tools. */
function marksCache(request: MessagesRequest): boolean {
  const marked = (value: unknown): boolean =>
    isRecord(value) && value.cache_control !== undefined && value.cache_control !== null;
  const anyBlock = (content: unknown): boolean => Array.isArray(content) && content.some(marked);
  return (
    marked(request) ||
    anyBlock(request.system) ||
    request.messages.some((message) => anyBlock(message.content)) ||
    anyBlock(request.tools)
  );
}

function systemMessage(system: MessagesRequest['system']): ChatMessage | undefined {
  if (system === undefined || system === null) return undefined;
  const blocks = blocksOf(system);
  if (blocks.length === 0) return undefined;
  return { role: 'system', content: systemContent(blocks, 'system') };
}

/** System text blocks: one string for one block, text parts in order for several (block boundaries kept). */
function systemContent(blocks: MessagesBlock[], param: string): string | Part[] {
  const texts = blocks.map((block, index) => {
    if (block.type !== 'text') cannotCarry(`${param}[${index}]`, `a "${block.type}" block in a system prompt`);
    return textOf(block, `${param}[${index}]`);
  });
  const [only] = texts;
  return texts.length === 1 && only !== undefined ? only : texts.map((text) => ({ type: 'text', text }));
}

/**
 * A user turn: its `tool_result` blocks first, one `tool` message each (chat wants them
 * right after the assistant's calls), then a user message with the rest of its content
 * and the images the results carried (rule A12).
 */
function userMessages(message: MessagesMessage, param: string): ChatMessage[] {
  const tools: ChatMessage[] = [];
  const parts: Part[] = [];
  const resultImages: Part[] = [];
  blocksOf(message.content).forEach((block, index) => {
    const where = typeof message.content === 'string' ? `${param}.content` : `${param}.content[${index}]`;
    if (block.type === 'tool_result') {
      const { tool, images } = toolMessage(block, where);
      tools.push(tool);
      resultImages.push(...images);
    } else {
      parts.push(...userParts(block, where));
    }
  });
  const content = [...parts, ...resultImages];
  if (content.length === 0) return tools;
  const [first] = content;
  const onlyText =
    content.length === 1 && first?.type === 'text' && typeof first.text === 'string' ? first.text : undefined;
  return [...tools, { role: 'user', content: onlyText ?? content }];
}

/** One content block of a user turn (or of a tool result) as chat parts. */
function userParts(block: MessagesBlock, param: string): Part[] {
  switch (block.type) {
    case 'text': {
      const text = textOf(block, param);
      return text === '' ? [] : [{ type: 'text', text }];
    }
    case 'image':
      return [imagePart(block, param)];
    case 'document':
      return documentParts(block, param);
    case 'thinking':
    case 'redacted_thinking':
    case 'tool_use':
      throw invalidParameter(`${param}.type`, 'block_in_assistant_only', { type: block.type });
    default:
      return cannotCarry(param, `a "${block.type}" block`);
  }
}

function sourceOf(block: MessagesBlock, param: string): Record<string, unknown> {
  if (!isRecord(block.source)) throw invalidValue(`${param}.source`, 'must_be_object');
  return block.source;
}

function imagePart(block: MessagesBlock, param: string): Part {
  const source = sourceOf(block, param);
  if (source.type === 'base64') {
    if (typeof source.media_type !== 'string' || typeof source.data !== 'string')
      throw invalidParameter(`${param}.source`, 'base64_source_incomplete');
    return { type: 'image_url', image_url: { url: `data:${source.media_type};base64,${source.data}` } };
  }
  if (source.type === 'url') {
    if (typeof source.url !== 'string' || source.url === '') throw invalidValue(`${param}.source.url`, 'must_be_url');
    return { type: 'image_url', image_url: { url: source.url } };
  }
  return cannotCarry(`${param}.source`, `an image source of type "${String(source.type)}"`);
}

/** A document: PDF as a `file` part (the node's adapter refuses it where the protocol has none), text inline. */
function documentParts(block: MessagesBlock, param: string): Part[] {
  const source = sourceOf(block, param);
  const title = typeof block.title === 'string' && block.title !== '' ? block.title : undefined;
  if (source.type === 'base64') {
    if (typeof source.data !== 'string' || typeof source.media_type !== 'string')
      throw invalidParameter(`${param}.source`, 'base64_source_incomplete');
    const file: Record<string, unknown> = { file_data: `data:${source.media_type};base64,${source.data}` };
    if (title !== undefined) file.filename = title;
    return [{ type: 'file', file }];
  }
  if (source.type === 'text') {
    if (typeof source.data !== 'string') throw invalidValue(`${param}.source.data`, 'must_be_string');
    return source.data === '' ? [] : [{ type: 'text', text: source.data }];
  }
  if (source.type === 'content') {
    const inner = source.content;
    if (typeof inner === 'string') return inner === '' ? [] : [{ type: 'text', text: inner }];
    if (!Array.isArray(inner)) throw invalidValue(`${param}.source.content`, 'must_be_string_or_blocks');
    return inner.flatMap((item: unknown, index) => {
      const where = `${param}.source.content[${index}]`;
      if (!isBlock(item) || (item.type !== 'text' && item.type !== 'image'))
        return cannotCarry(where, 'a block other than text or image in a document');
      return userParts(item, where);
    });
  }
  return cannotCarry(`${param}.source`, `a document source of type "${String(source.type)}"`);
}

/** A `tool_result` → a `tool` message with all its text (rule A11), its images for the following user message (A12). */
function toolMessage(block: MessagesBlock, param: string): { tool: ChatMessage; images: Part[] } {
  if (typeof block.tool_use_id !== 'string' || block.tool_use_id === '')
    throw invalidValue(`${param}.tool_use_id`, 'must_be_tool_use_id');
  const texts: string[] = [];
  const images: Part[] = [];
  const content = block.content;
  if (typeof content === 'string') texts.push(content);
  else if (Array.isArray(content)) {
    content.forEach((item: unknown, index) => {
      const where = `${param}.content[${index}]`;
      if (!isBlock(item)) throw invalidValue(where, 'must_be_content_block');
      for (const part of userParts(item, where)) {
        // A text part's text is a string (textOf checked it).
        if (part.type === 'text') texts.push(typeof part.text === 'string' ? part.text : '');
        else images.push(part);
      }
    });
  } else if (content !== undefined && content !== null) {
    throw invalidValue(`${param}.content`, 'must_be_string_or_blocks');
  }
  let text = texts.join('\n');
  if (text === '' && images.length > 0) text = IMAGES_PLACEHOLDER;
  if (block.is_error === true) text = `Error: ${text}`;
  return { tool: { role: 'tool', tool_call_id: block.tool_use_id, content: text }, images };
}

/**
 * An assistant turn: text as `content`, `tool_use` blocks as `tool_calls`, and thinking
 * that this gateway sealed (3.8) as `reasoning_content` with any Gemini signatures put back
 * on their calls. Thinking without our envelope is an Anthropic node's: dropped here.
 */
function assistantMessage(
  message: MessagesMessage,
  param: string,
  envelopes: ThinkingSignatures,
): { chat: ChatMessage | undefined; node: string | undefined } {
  let text = '';
  let reasoning = '';
  let node: string | undefined;
  const signatures: Record<string, string> = {};
  const toolCalls: Part[] = [];
  blocksOf(message.content).forEach((block, index) => {
    const where = typeof message.content === 'string' ? `${param}.content` : `${param}.content[${index}]`;
    switch (block.type) {
      case 'text':
        text += textOf(block, where);
        break;
      case 'thinking':
      case 'redacted_thinking': {
        const artifact = envelopes.open(block.type === 'thinking' ? block.signature : block.data);
        if (artifact === undefined) break;
        node = artifact.node;
        if (block.type === 'thinking' && typeof block.thinking === 'string') reasoning += block.thinking;
        Object.assign(signatures, artifact.toolSignatures);
        break;
      }
      case 'tool_use': {
        if (typeof block.id !== 'string' || block.id === '')
          throw invalidValue(`${where}.id`, 'must_be_non_empty_string');
        if (typeof block.name !== 'string' || block.name === '')
          throw invalidValue(`${where}.name`, 'must_be_non_empty_string');
        const input = block.input ?? {};
        if (!isRecord(input)) throw invalidValue(`${where}.input`, 'must_be_object');
        toolCalls.push({
          id: block.id,
          type: 'function',
          function: { name: block.name, arguments: JSON.stringify(input) },
        });
        break;
      }
      default:
        cannotCarry(where, `a "${block.type}" block`);
    }
  });
  for (const call of toolCalls) {
    const signature = typeof call.id === 'string' ? signatures[call.id] : undefined;
    if (signature !== undefined) call.extra_content = { google: { thought_signature: signature } };
  }
  if (text === '' && toolCalls.length === 0 && reasoning === '') return { chat: undefined, node };
  const chat: ChatMessage = { role: 'assistant', content: text === '' && toolCalls.length > 0 ? null : text };
  if (toolCalls.length > 0) chat.tool_calls = toolCalls;
  if (reasoning !== '') chat.reasoning_content = reasoning;
  return { chat, node };
}

/**
 * Thinking and effort → the chat form's reasoning fields (inbound-protocols 3.1): an
 * effort from `output_config.effort`; an explicit budget as `reasoning.max_tokens`
 * (PRODUCT.md decision 19); adaptive without an effort, disabled, or absent: the model's
 * default. Returns where the effort was set.
 */
function applyThinking(request: MessagesRequest, chat: ChatRequest): string | undefined {
  const effort = request.output_config?.effort ?? undefined;
  const thinking = request.thinking ?? undefined;
  if (thinking?.type === 'enabled') chat.reasoning = { max_tokens: thinking.budget_tokens };
  if (effort === undefined) return undefined;
  chat.reasoning_effort = effort;
  return 'output_config.effort';
}

/** Client tools → function tools; server tools withdrawn from the offer (PRODUCT.md decision 15). */
function applyTools(request: MessagesRequest, chat: ChatRequest): void {
  const offered = new Set<string>();
  const tools: Part[] = [];
  (request.tools ?? []).forEach((tool, index) => {
    if (tool.type !== undefined && tool.type !== null && tool.type !== 'custom') return;
    if (!isRecord(tool.input_schema)) throw invalidParameter(`tools[${index}].input_schema`, 'input_schema_required');
    const fn: Record<string, unknown> = { name: tool.name, parameters: tool.input_schema };
    if (typeof tool.description === 'string') fn.description = tool.description;
    const fields: Record<string, unknown> = tool;
    const strict = fields.strict;
    if (typeof strict === 'boolean') fn.strict = strict;
    tools.push({ type: 'function', function: fn });
    offered.add(tool.name);
  });
  const choice = request.tool_choice ?? undefined;
  if (tools.length === 0) {
    if (choice !== undefined && (choice.type === 'any' || choice.type === 'tool'))
      cannotCarry('tool_choice', 'forcing a tool call with no client tool offered');
    return;
  }
  chat.tools = tools;
  if (choice === undefined) return;
  if (choice.type === 'tool') {
    if (choice.name === undefined) throw invalidValue('tool_choice.name', 'required_with_tool_type');
    if (!offered.has(choice.name))
      cannotCarry('tool_choice.name', `forcing the tool "${choice.name}", which is not a client tool`);
    const forced = { type: 'function', function: { name: choice.name } };
    chat.tool_choice = forced;
  } else {
    chat.tool_choice = { auto: 'auto', any: 'required', none: 'none' }[choice.type];
  }
  if (choice.disable_parallel_tool_use === true && choice.type !== 'none') chat.parallel_tool_calls = false;
}

/** `output_config.format` (structured output) → `response_format` json_schema. */
function applyFormat(request: MessagesRequest, chat: ChatRequest): void {
  const format = request.output_config?.format ?? undefined;
  if (format === undefined) return;
  if (format.type !== 'json_schema' || format.schema === undefined)
    cannotCarry('output_config.format', `an output format of type "${format.type}"`);
  const jsonSchema = { type: 'json_schema', json_schema: { name: 'output', schema: format.schema, strict: true } };
  chat.response_format = jsonSchema;
}

/** Blocks the chat form carries (the others are Anthropic's own: server-tool turns, search results, uploads). */
const CARRIED_BLOCKS: ReadonlySet<string> = new Set([
  'text',
  'image',
  'document',
  'tool_use',
  'tool_result',
  'thinking',
  'redacted_thinking',
]);
/** Image and document sources the chat form carries (documentParts, imagePart). */
const CARRIED_SOURCES: Readonly<Record<'image' | 'document', ReadonlySet<string>>> = {
  image: new Set(['base64', 'url']),
  document: new Set(['base64', 'text', 'content']),
};

function carried(block: unknown): boolean {
  if (!isRecord(block) || typeof block.type !== 'string' || !CARRIED_BLOCKS.has(block.type)) return false;
  if (block.type !== 'image' && block.type !== 'document') return true;
  return (
    isRecord(block.source) &&
    typeof block.source.type === 'string' &&
    CARRIED_SOURCES[block.type].has(block.source.type)
  );
}

/**
 * Whether a block names content an Anthropic node fetches itself, so its size is unknown
 * here: a file by id (an image or document `source: {type: "file"}`, a `container_upload`)
 * or a document by URL.
 */
function namesUnseenContent(block: unknown): boolean {
  if (!isRecord(block)) return false;
  if (block.type === 'container_upload') return true;
  if (block.type !== 'image' && block.type !== 'document') return false;
  const source = isRecord(block.source) ? block.source.type : undefined;
  return source === 'file' || (block.type === 'document' && source === 'url');
}

/**
 * What carriedByChat leaves out of the request's turns (tool results' content included), for
 * the reservation to price (billing/unresolved-inputs.ts): blocks naming content the
 * gateway cannot size are counted, the others (server-tool turns, search results) kept as
 * their JSON text.
 */
export function leftOutBlocks(request: MessagesRequest): LeftOut {
  let unresolved = 0;
  const text: string[] = [];
  const visit = (block: unknown): void => {
    if (carried(block)) {
      if (isRecord(block) && block.type === 'tool_result') arrayOf(block.content)?.forEach(visit);
    } else if (namesUnseenContent(block)) unresolved++;
    else text.push(JSON.stringify(block));
  };
  for (const message of request.messages) if (Array.isArray(message.content)) message.content.forEach(visit);
  if (Array.isArray(request.system)) request.system.filter((block) => block.type !== 'text').forEach(visit);
  return { unresolved, text };
}

function carriedContent(content: string | MessagesBlock[]): string | MessagesBlock[] {
  if (!Array.isArray(content)) return content;
  return content.filter(carried).map((block) => {
    const inner = block.type === 'tool_result' ? arrayOf(block.content) : undefined;
    return inner === undefined ? block : { ...block, content: inner.filter(carried) };
  });
}

/**
 * The request as far as the chat form can carry it, for a model whose every node serves
 * Messages natively: there the internal request only sizes the reservation and the policy
 * (the node gets the client's body), so what only Anthropic can do (server-tool turns, a
 * forced server tool, files by id, a container, more than four stop sequences) is left out
 * of it instead of refused.
 */
export function carriedByChat(request: MessagesRequest): MessagesRequest {
  return allCarried(request) ? request : withoutUncarried(request);
}

/** Whether the chat form carries the whole request (the usual case): then it is used as it is, not copied. */
function allCarried(request: MessagesRequest): boolean {
  if ((request.container ?? undefined) !== undefined) return false;
  if ((request.stop_sequences?.length ?? 0) > MAX_STOP_SEQUENCES) return false;
  if (Array.isArray(request.system) && !request.system.every((block) => block.type === 'text')) return false;
  if (request.tool_choice !== undefined && request.tool_choice !== null && forcesServerTool(request)) return false;
  return request.messages.every(
    (message) =>
      !Array.isArray(message.content) ||
      message.content.every(
        (block: MessagesBlock) =>
          carried(block) &&
          (block.type !== 'tool_result' || !Array.isArray(block.content) || block.content.every(carried)),
      ),
  );
}

/** Whether `tool_choice` forces a tool that is not a client tool (a server tool, or any tool with none offered). */
function forcesServerTool(request: MessagesRequest): boolean {
  const clientTools = new Set(
    (request.tools ?? [])
      .filter((tool) => tool.type === undefined || tool.type === null || tool.type === 'custom')
      .map((tool) => tool.name),
  );
  const choice = request.tool_choice ?? undefined;
  return (
    choice !== undefined &&
    (choice.type === 'tool' ? !clientTools.has(choice.name ?? '') : choice.type === 'any' && clientTools.size === 0)
  );
}

/** A copy of the request without what the chat form cannot carry. */
function withoutUncarried(request: MessagesRequest): MessagesRequest {
  const forcesOther = forcesServerTool(request);
  return {
    ...request,
    system: Array.isArray(request.system) ? request.system.filter((block) => block.type === 'text') : request.system,
    messages: request.messages.map((message) => ({ ...message, content: carriedContent(message.content) })),
    stop_sequences: request.stop_sequences?.slice(0, MAX_STOP_SEQUENCES),
    tool_choice: forcesOther ? undefined : request.tool_choice,
    container: undefined,
  };
}
