import type { ResponseStore } from '../../responses-state/response-store.js';
import { outputItemsOf } from '../../responses-state/conversation.js';
import { outputItemId, responseIdOfItem } from './response-ids.js';

type Item = Record<string, unknown>;

/** Most distinct `item_reference`s one request may hold (each may cost a store read). */
const MAX_REFERENCES = 256;

/** The ids of an input's `item_reference`s. */
function referencedIds(input: string | readonly Item[]): string[] {
  if (typeof input === 'string') return [];
  const ids = new Set<string>();
  for (const item of input) {
    if (item.type === 'item_reference' && typeof item.id === 'string') ids.add(item.id);
  }
  return [...ids].slice(0, MAX_REFERENCES);
}

/**
 * The stored items an input's `item_reference`s name, scoped to the account
 * (inbound-protocols 2.12): looked up in the stored conversation first, then in the stored
 * response the id belongs to (our item ids carry their response's). Ids not found are
 * left out; the translator answers them with 404.
 */
export async function referencedItems(
  store: ResponseStore,
  accountId: string,
  input: string | readonly Item[],
  history: readonly Item[],
): Promise<Map<string, Item>> {
  const found = new Map<string, Item>();
  const wanted = referencedIds(input);
  if (wanted.length === 0) return found;
  const known = new Map(history.filter((item) => typeof item.id === 'string').map((item) => [item.id as string, item]));
  // Items of one response are often referenced together (its message and its reasoning): one read each.
  const responses = new Map<string, readonly Item[] | undefined>();
  for (const id of wanted) {
    const item = known.get(id);
    if (item !== undefined) {
      found.set(id, item);
      continue;
    }
    const responseId = responseIdOfItem(id);
    if (responseId === undefined) continue;
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
