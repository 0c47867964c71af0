import { gatewayError } from '../../errors/gateway-error.js';
import type { ResponseStore } from '../../responses-state/response-store.js';
import { outputItemsOf } from '../../responses-state/conversation.js';
import { outputItemId, responseIdOfItem } from './response-ids.js';

type Item = Record<string, unknown>;

/** Most distinct `item_reference`s one request may hold (each may cost a store read). */
const MAX_REFERENCES = 256;

/** The `item_reference`s of an input: each id, with where it first stands. */
function referencesOf(input: string | readonly Item[]): Map<string, string> {
  const ids = new Map<string, string>();
  if (typeof input === 'string') return ids;
  input.forEach((item, index) => {
    if (item.type === 'item_reference' && typeof item.id === 'string' && !ids.has(item.id)) {
      ids.set(item.id, `input[${index}]`);
    }
  });
  return ids;
}

/**
 * The stored items an input's `item_reference`s name, scoped to the account
 * (inbound-protocols 2.12): looked up in the stored conversation first, then in the stored
 * response the id belongs to (our item ids carry their response's), then, for a node's own
 * item ids, among the account's stored responses that hold them. An id not found there is
 * 404 not_found naming the item: another account's item, or one kept only by a node, never
 * reaches a node (a node keeps every account's items under the gateway's one key).
 */
export async function referencedItems(
  store: ResponseStore,
  accountId: string,
  input: string | readonly Item[],
  history: readonly Item[],
): Promise<Map<string, Item>> {
  const found = new Map<string, Item>();
  const wanted = referencesOf(input);
  if (wanted.size === 0) return found;
  const known = new Map<string, Item>();
  for (const item of history) if (typeof item.id === 'string') known.set(item.id, item);
  // Items of one response are often referenced together (its message and its reasoning): one read each.
  const responses = new Map<string, readonly Item[] | undefined>();
  const nodeIds: string[] = [];
  for (const id of [...wanted.keys()].slice(0, MAX_REFERENCES)) {
    const item = known.get(id);
    if (item !== undefined) {
      found.set(id, item);
      continue;
    }
    const responseId = responseIdOfItem(id);
    if (responseId === undefined) {
      nodeIds.push(id);
      continue;
    }
    let items = responses.get(responseId);
    if (!responses.has(responseId)) {
      const stored = await store.get(accountId, responseId);
      items = stored === undefined ? undefined : [...stored.inputItems, ...outputItemsOf(stored)];
      responses.set(responseId, items);
    }
    for (const candidate of items ?? []) {
      if (candidate.id === id) found.set(id, candidate);
    }
  }
  if (nodeIds.length > 0) {
    for (const stored of await store.holdingItems(accountId, nodeIds)) {
      for (const candidate of outputItemsOf(stored)) {
        if (typeof candidate.id === 'string' && wanted.has(candidate.id)) found.set(candidate.id, candidate);
      }
    }
  }
  for (const [id, path] of wanted) {
    if (!found.has(id)) throw gatewayError('not_found', { param: path, params: { kind: 'item', id } });
  }
  return found;
}

/**
 * This request's own input items as they are stored and listed (inbound-protocols 2.11):
 * a string input as one user message, every item with a `type` and an id (ours, `in_…`,
 * when it came without one), references replaced by the items they name.
 */
export function storedInputItems(
  input: string | readonly Item[],
  references: ReadonlyMap<string, Item>,
  responseId: string,
): Item[] {
  const items: readonly Item[] =
    typeof input === 'string'
      ? [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: input }] }]
      : input;
  return items.map((item, index) => {
    const resolved =
      item.type === 'item_reference' && typeof item.id === 'string' ? (references.get(item.id) ?? item) : item;
    const typed = typeof resolved.type === 'string' ? resolved : { type: 'message', ...resolved };
    return typeof typed.id === 'string' && typed.id !== ''
      ? typed
      : { id: outputItemId('in', responseId, index), ...typed };
  });
}
