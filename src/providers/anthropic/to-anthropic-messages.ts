import type { ChatMessage } from '../../protocol/openai/chat-request-schema.js';
import { invalidParameter } from '../../errors/gateway-error.js';
import { Buffer } from 'node:buffer';
import {
  cacheControlOf,
  contentParts,
  fileDataOf,
  imageUrlOf,
  isRecord,
  notExpressible,
  parseDataUrl,
  readToolCalls,
  textOnly,
  type ContentPart,
} from '../translate-content.js';

const PROTOCOL = 'anthropic';

/** Media types Anthropic takes for base64 images (provider-protocols 4.2). */
const IMAGE_MEDIA_TYPES: ReadonlySet<string> = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

type Block = Record<string, unknown>;

/** A content part's block with the part's `cache_control`, unchanged, when it has one. */
function withCacheControl(block: Block, part: ContentPart, param: string): Block {
  const cacheControl = cacheControlOf(part, param);
  return cacheControl === undefined ? block : { ...block, cache_control: cacheControl };
}

/** A message-level `cache_control` marks the message's last block (the breakpoint ends the message). */
function markLast(blocks: Block[], message: ChatMessage, param: string): Block[] {
  const fields: Record<string, unknown> = message;
  const cacheControl = cacheControlOf(fields, param);
  const last = blocks[blocks.length - 1];
  if (cacheControl !== undefined && last !== undefined)
    blocks[blocks.length - 1] = { ...last, cache_control: cacheControl };
  return blocks;
}

/** One Anthropic message: content always as blocks. */
export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: Block[];
}

/**
 * OpenAI messages → Anthropic `system` and `messages` (provider-protocols 6.1):
 * system and developer messages become top-level system text blocks, in order; tool
 * results become `tool_result` blocks of a user turn; consecutive turns of the same role
 * are merged (Anthropic wants alternating roles). An assistant message's
 * `thinking_blocks` (our extension, see README) go first, verbatim, so signed thinking
 * survives a tool loop. `cache_control` (ttl included) on a message, a content part or a
 * system part is kept on the block it marks (PRODUCT.md decision 21); a `file` part (PDF or
 * plain text as base64 `file_data`) becomes a `document` block.
 */
export function toAnthropicMessages(messages: readonly ChatMessage[]): {
  system: Block[];
  messages: AnthropicMessage[];
} {
  const system: Block[] = [];
  const out: AnthropicMessage[] = [];
  const push = (role: AnthropicMessage['role'], blocks: Block[]): void => {
    if (blocks.length === 0) return;
    const last = out[out.length - 1];
    if (last !== undefined && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  messages.forEach((message, index) => {
    const param = `messages[${index}]`;
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(...markLast(systemBlocks(message.content, `${param}.content`), message, param));
        break;
      case 'user':
        push('user', markLast(userBlocks(message.content, `${param}.content`), message, param));
        break;
      case 'assistant':
        push('assistant', markLast(assistantBlocks(message, param), message, param));
        break;
      case 'tool':
        push('user', markLast([toolResult(message, param)], message, param));
        break;
      default:
        throw notExpressible(`${param}.role`, PROTOCOL, `the role "${message.role}"`);
    }
  });
  return { system, messages: out };
}

/**
 * System text: one block, parts joined by newlines, unless a part marks a cache breakpoint;
 * then one block per part, so the breakpoint stays where the client put it.
 */
function systemBlocks(content: unknown, param: string): Block[] {
  const parts = contentParts(content);
  if (!parts.some((part) => part.cache_control !== undefined && part.cache_control !== null)) {
    const text = textOnly(content, param, PROTOCOL);
    return text === '' ? [] : [{ type: 'text', text }];
  }
  return parts.flatMap((part, index): Block[] => {
    const where = `${param}[${index}]`;
    if (part.type !== 'text' || typeof part.text !== 'string')
      throw notExpressible(where, PROTOCOL, `a "${part.type}" part in this message`);
    return part.text === '' ? [] : [withCacheControl({ type: 'text', text: part.text }, part, where)];
  });
}

function userBlocks(content: unknown, param: string): Block[] {
  return contentParts(content).flatMap((part, index): Block[] => {
    const where = `${param}[${index}]`;
    if (part.type === 'text')
      return typeof part.text === 'string' && part.text !== ''
        ? [withCacheControl({ type: 'text', text: part.text }, part, where)]
        : [];
    if (part.type === 'image_url') return [withCacheControl(imageBlock(imageUrlOf(part, where), where), part, where)];
    if (part.type === 'file') return [withCacheControl(documentBlock(part, where), part, where)];
    throw notExpressible(where, PROTOCOL, `a "${part.type}" content part`);
  });
}

/** A `file` part → a `document` block: PDF as base64, plain text decoded (provider-protocols 4.2). */
function documentBlock(part: ContentPart, param: string): Block {
  const file = fileDataOf(part, param, PROTOCOL);
  const title = file.filename === undefined ? {} : { title: file.filename };
  if (file.mediaType === 'application/pdf')
    return { type: 'document', source: { type: 'base64', media_type: file.mediaType, data: file.data }, ...title };
  if (file.mediaType === 'text/plain') {
    return {
      type: 'document',
      source: { type: 'text', media_type: file.mediaType, data: Buffer.from(file.data, 'base64').toString('utf8') },
      ...title,
    };
  }
  throw notExpressible(`${param}.file.file_data`, PROTOCOL, `a file of type ${file.mediaType}`);
}

function imageBlock(url: string, param: string): Block {
  const data = parseDataUrl(url);
  if (data !== undefined) {
    if (!IMAGE_MEDIA_TYPES.has(data.mediaType))
      throw notExpressible(`${param}.image_url.url`, PROTOCOL, `an image of type ${data.mediaType}`);
    return { type: 'image', source: { type: 'base64', media_type: data.mediaType, data: data.data } };
  }
  if (/^https?:\/\//i.test(url)) return { type: 'image', source: { type: 'url', url } };
  throw notExpressible(
    `${param}.image_url.url`,
    PROTOCOL,
    'an image URL that is neither http(s) nor a base64 data URL',
  );
}

function assistantBlocks(message: ChatMessage, param: string): Block[] {
  const blocks: Block[] = [];
  const thinking = message.thinking_blocks;
  if (Array.isArray(thinking)) {
    thinking.forEach((block: unknown, index) => {
      const valid =
        isRecord(block) &&
        ((block.type === 'thinking' && typeof block.thinking === 'string' && typeof block.signature === 'string') ||
          (block.type === 'redacted_thinking' && typeof block.data === 'string'));
      if (!valid) {
        const where = `${param}.thinking_blocks[${index}]`;
        throw invalidParameter(where, 'thinking_block_shape');
      }
      blocks.push(
        block.type === 'thinking'
          ? { type: 'thinking', thinking: block.thinking, signature: block.signature }
          : { type: 'redacted_thinking', data: block.data },
      );
    });
  }
  contentParts(message.content).forEach((part, index) => {
    const text = part.type === 'text' ? part.text : part.type === 'refusal' ? part.refusal : undefined;
    if (typeof text !== 'string')
      throw notExpressible(`${param}.content[${index}]`, PROTOCOL, `a "${part.type}" part in an assistant message`);
    if (text !== '') blocks.push(withCacheControl({ type: 'text', text }, part, `${param}.content[${index}]`));
  });
  for (const call of readToolCalls(message.tool_calls, `${param}.tool_calls`, PROTOCOL)) {
    blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: call.arguments });
  }
  return blocks;
}

function toolResult(message: ChatMessage, param: string): Block {
  if (typeof message.tool_call_id !== 'string' || message.tool_call_id === '') {
    throw invalidParameter(`${param}.tool_call_id`, 'tool_call_id_needed');
  }
  const block: Block = { type: 'tool_result', tool_use_id: message.tool_call_id };
  if (typeof message.content === 'string') {
    if (message.content !== '') block.content = message.content;
  } else {
    const content = userBlocks(message.content, `${param}.content`);
    if (content.length > 0) block.content = content;
  }
  return block;
}
