/** A value ready now, or a promise of it when it has to wait (Redis, a table still loading). */
export type MaybeAsync<T> = T | Promise<T>;

/**
 * `next` of the value: called at once when the value is ready, else once its promise
 * fulfils (`failed` of its rejection, when given). The one way a hot path reads a
 * maybe-async result: a ready value costs no microtask (an `await` of it would cost one per
 * request on the JSON path).
 */
export function whenReady<T, R>(
  value: MaybeAsync<T>,
  next: (ready: T) => R,
  failed?: (error: unknown) => Promise<never>,
): R | Promise<Awaited<R>> {
  return value instanceof Promise ? (value.then(next, failed) as Promise<Awaited<R>>) : next(value);
}
