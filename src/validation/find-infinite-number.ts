/**
 * The path (`messages[0].extra.n`, as the 400s name params) of the first number in a parsed
 * JSON value that is not finite; undefined when every number is. Walks with its own stack,
 * never recursion; called only when the text scan saw a literal that overflows, so clean
 * bodies never pay for the walk.
 */
export function findInfiniteNumber(root: unknown): string | undefined {
  const pending: Array<{ value: unknown; path: string }> = [{ value: root, path: '' }];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    const { value, path } = item;
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) return path;
    } else if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index--)
        pending.push({ value: value[index], path: `${path}[${index}]` });
    } else if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value).reverse()) {
        pending.push({ value: child, path: path === '' ? key : `${path}.${key}` });
      }
    }
  }
  return undefined;
}
