import type { ModelConfig } from '../config/gateway-config.js';
import { DEFAULTS } from '../config/defaults.js';
import type { ChatMessage, ChatRequest } from '../protocol/openai/chat-request-schema.js';
import { isRecord } from '../validation/is-record.js';
import { hashText, hashToNumber } from '../routing/affinity-hash.js';

/** How much of a conversation's opening `prefix` affinity hashes: 8 KiB (PRODUCT decision 26). */
export const MAX_OPENING_CHARACTERS = 8 * 1024;

/**
 * The affinity key of a request for its model (PRODUCT decision 26), as a 32-bit number:
 * the session key the front door read, or with `prefix` affinity and no session key, a
 * hash of the conversation's opening (system text and the first user message, at most
 * 8 KiB of it). Undefined: no affinity (`none`, or no key), the request is routed by load.
 */
export function affinityKey(model: ModelConfig, chat: ChatRequest, sessionKey: string | undefined): number | undefined {
  const mode = model.routing?.affinity ?? DEFAULTS.routing.affinity;
  if (mode === 'none') return undefined;
  if (sessionKey !== undefined) return hashText(sessionKey);
  if (mode !== 'prefix') return undefined;
  const opening = conversationOpening(chat.messages);
  return opening === '' ? undefined : hashToNumber(opening);
}

/**
 * System (and developer) text, then the first user message's text: at most
 * MAX_OPENING_CHARACTERS, the system text half of it at most, so the first user message
 * always counts. An agent's system prompt alone fills 8 KiB (Claude Code's is longer): were it
 * hashed first and whole, every session of that agent would get one key and one node.
 */
export function conversationOpening(messages: readonly ChatMessage[]): string {
  const half = MAX_OPENING_CHARACTERS / 2;
  let system = '';
  for (const message of messages) {
    if (message.role === 'system' || message.role === 'developer') {
      if (system.length < half) system = appendText(system, message.content, half) + '\u0000';
      continue;
    }
    if (message.role === 'user') {
      const head = system.slice(0, half);
      return head + appendText('', message.content, MAX_OPENING_CHARACTERS - head.length);
    }
  }
  return system.slice(0, half);
}

/** `opening` with the text of `content` (a string or text parts) added, up to `limit` characters in all. */
function appendText(opening: string, content: unknown, limit: number): string {
  if (typeof content === 'string') return opening + content.slice(0, Math.max(0, limit - opening.length));
  if (!Array.isArray(content)) return opening;
  let text = opening;
  for (const part of content) {
    if (text.length >= limit) break;
    if (isRecord(part) && typeof part.text === 'string') text += part.text.slice(0, limit - text.length);
  }
  return text;
}
