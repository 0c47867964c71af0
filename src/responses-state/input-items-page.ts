/** What `GET /v1/responses/{id}/input_items` asks for. */
export interface InputItemsQuery {
  /** 1..100. */
  readonly limit: number;
  readonly order: 'asc' | 'desc';
  /** An item id: the page starts after it, in `order`. */
  readonly after: string | undefined;
}

/** OpenAI's `ResponseItemList`. */
export interface InputItemsPage {
  readonly object: 'list';
  readonly data: Record<string, unknown>[];
  readonly first_id: string | null;
  readonly last_id: string | null;
  readonly has_more: boolean;
}

const idOf = (item: Record<string, unknown> | undefined): string | null =>
  typeof item?.id === 'string' ? item.id : null;

/**
 * One page of a stored response's input items (in the order sent: `asc`; newest first:
 * `desc`). Undefined when `after` names no item of this response.
 */
export function inputItemsPage(
  items: readonly Record<string, unknown>[],
  query: InputItemsQuery,
): InputItemsPage | undefined {
  const ordered = query.order === 'asc' ? items : [...items].reverse();
  let start = 0;
  if (query.after !== undefined) {
    const index = ordered.findIndex((item) => idOf(item) === query.after);
    if (index === -1) return undefined;
    start = index + 1;
  }
  const data = ordered.slice(start, start + query.limit);
  return {
    object: 'list',
    data,
    first_id: idOf(data[0]),
    last_id: idOf(data[data.length - 1]),
    has_more: start + data.length < ordered.length,
  };
}
