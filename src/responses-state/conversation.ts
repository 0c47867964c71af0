import { gatewayError, validationFailed } from '../errors/gateway-error.js';
import type { ResponseStore } from './response-store.js';
import type { StoredResponse } from './stored-response.js';

/** Most stored responses one `previous_response_id` chain may reach back through. */
export const MAX_CHAIN_LENGTH = 1000;

/**
 * The whole conversation before a new turn (inbound-protocols.md 2.12): every stored
 * ancestor's input items then output items, oldest first; and the node that made the last
 * one. 400 previous_response_not_found (OpenAI's status) when `previousResponseId` is not this account's (or
 * expired, or deleted). An older ancestor that is gone ends the chain there. A chain longer
 * than MAX_CHAIN_LENGTH is refused with 400 rather than cut.
 */
export async function conversationBefore(
  store: ResponseStore,
  accountId: string,
  previousResponseId: string,
): Promise<{ items: Record<string, unknown>[]; node: string | null }> {
  const last = await store.get(accountId, previousResponseId);
  if (last === undefined) {
    throw gatewayError('previous_response_not_found', {
      param: 'previous_response_id',
      params: { id: previousResponseId },
    });
  }
  const chain: StoredResponse[] = [last];
  const seen = new Set([last.id]);
  for (let parentId = last.previousResponseId; parentId !== null && !seen.has(parentId);) {
    if (chain.length === MAX_CHAIN_LENGTH) {
      throw validationFailed('previous_response_id', 'conversation_too_long', { limit: MAX_CHAIN_LENGTH });
    }
    const parent = await store.get(accountId, parentId);
    if (parent === undefined) break;
    chain.push(parent);
    seen.add(parent.id);
    parentId = parent.previousResponseId;
  }
  const items: Record<string, unknown>[] = [];
  for (let index = chain.length - 1; index >= 0; index--) {
    const stored = chain[index] as StoredResponse;
    for (const item of stored.inputItems) items.push(item);
    for (const item of outputItemsOf(stored)) items.push(item);
  }
  return { items, node: last.node };
}

/** The Response object's `output` items (none when it has no array there). */
export function outputItemsOf(stored: StoredResponse): Record<string, unknown>[] {
  const output = stored.response.output;
  return Array.isArray(output)
    ? output.filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null)
    : [];
}
