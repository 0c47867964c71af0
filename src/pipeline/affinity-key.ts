import type { ModelConfig } from '../config/gateway-config.js';
import { DEFAULTS } from '../config/defaults.js';
import type { ChatMessage, ChatRequest } from '../protocol/openai/chat-request-schema.js';
import { isRecord } from '../protocol/is-record.js';
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

/** System (and developer) text, then the first user message's text: at most MAX_OPENING_CHARACTERS. */
export function conversationOpening(messages: readonly ChatMessage[]): string {
  let opening = '';
  for (const message of messages) {
    if (message.role !== 'system' && message.role !== 'developer' && message.role !== 'user') continue;
    opening = appendText(opening, message.content);
    if (opening.length >= MAX_OPENING_CHARACTERS) return opening.slice(0, MAX_OPENING_CHARACTERS);
    if (message.role === 'user') break;
    opening += '\u0000';
  }
  return opening;
}

function appendText(opening: string, content: unknown): string {
  if (typeof content === 'string') return opening + content.slice(0, MAX_OPENING_CHARACTERS - opening.length);
  if (!Array.isArray(content)) return opening;
  let text = opening;
  for (const part of content) {
    if (text.length >= MAX_OPENING_CHARACTERS) break;
    if (isRecord(part) && typeof part.text === 'string')
      text += part.text.slice(0, MAX_OPENING_CHARACTERS - text.length);
  }
  return text;
}
