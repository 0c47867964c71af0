import type { IncomingMessage } from 'node:http';
import { hashKey } from '../routing/affinity-hash.js';

/** Client headers that name a session, first found wins (PRODUCT decision 26). */
export const SESSION_HEADERS = ['x-session-id', 'x-claude-code-session-id'] as const;

/**
 * The session a request belongs to, for session affinity (PRODUCT decision 26): the header
 * `x-session-id`, else `x-claude-code-session-id`, else the first of the door's own fields
 * that is a non-empty string (chat and Responses `prompt_cache_key`, Anthropic
 * `metadata.user_id`). The key is kept as a 64-bit hash in hex (16 characters), whatever
 * the length the client sent: only equality matters for routing. Undefined when none is given.
 */
export function sessionKeyOf(request: IncomingMessage, ...fields: readonly unknown[]): string | undefined {
  for (const name of SESSION_HEADERS) {
    const header = request.headers[name];
    if (typeof header === 'string' && header !== '') return hashKey(header);
  }
  for (const field of fields) if (typeof field === 'string' && field !== '') return hashKey(field);
  return undefined;
}
