import { gatewayError, validationFailed } from '../errors/gateway-error.js';
import type { ConversationLimits, ResponseStore } from './response-store.js';
import type { StoredResponse } from './stored-response.js';

/** The conversation a new turn continues. */
export interface Conversation {
  /** Every stored ancestor's input items then output items, oldest first. */
  readonly items: Record<string, unknown>[];
  /** The node that made the last one. */
  readonly node: string | null;
  /** How many stored responses it holds (the new response's depth is one more). */
  readonly responses: number;
}

/**
 * The whole conversation before a new turn (inbound-protocols 2.12), read from the store
 * at once. 400 previous_response_not_found (OpenAI's status) when `previousResponseId` is
 * not this account's (or expired, or deleted). An older ancestor that is gone ends the
 * chain there. A chain of more than `limits.maxResponses` responses
 * (`responses.max_conversation_responses`) is refused with 400 rather than cut, at once
 * when the last response's depth says so; so is one whose stored JSON passes
 * `limits.maxBytes` (`responses.max_conversation_bytes`).
 */
export async function conversationBefore(
  store: ResponseStore,
  accountId: string,
  previousResponseId: string,
  limits: ConversationLimits,
): Promise<Conversation> {
  const { maxResponses, maxBytes } = limits;
  const chain = withoutCycle(await store.chain(accountId, previousResponseId, limits));
  const last = chain[0]?.stored;
  if (last === undefined) {
    throw gatewayError('previous_response_not_found', {
      param: 'previous_response_id',
      params: { id: previousResponseId },
    });
  }
  if (chain.length > maxResponses || (last.depth ?? 0) > maxResponses) {
    throw validationFailed('previous_response_id', 'conversation_too_long', { limit: maxResponses });
  }
  if (chain.reduce((total, link) => total + link.bytes, 0) > maxBytes) {
    throw validationFailed('previous_response_id', 'conversation_too_large', { limit: maxBytes });
  }
  const items: Record<string, unknown>[] = [];
  for (const { stored } of chain.toReversed()) {
    for (const item of stored.inputItems) items.push(item);
    for (const item of outputItemsOf(stored)) items.push(item);
  }
  return { items, node: last.node, responses: chain.length };
}

/** The chain up to the first response met twice (a chain that loops ends there). */
function withoutCycle<T extends { readonly stored: StoredResponse }>(chain: T[]): T[] {
  const seen = new Set<string>();
  const repeat = chain.findIndex(({ stored }) => {
    if (seen.has(stored.id)) return true;
    seen.add(stored.id);
    return false;
  });
  return repeat === -1 ? chain : chain.slice(0, repeat);
}

/** The Response object's `output` items (none when it has no array there). */
export function outputItemsOf(stored: Pick<StoredResponse, 'response'>): Record<string, unknown>[] {
  const output = stored.response.output;
  return Array.isArray(output)
    ? output.filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null)
    : [];
}
