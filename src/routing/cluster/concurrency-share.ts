/**
 * This instance's part of a node's `max_concurrency` when `instances` live instances
 * share it: `max` split as evenly as whole requests allow, the remainder going one each
 * to the lowest ranks (rank: this instance's position among the live instance ids,
 * sorted). The parts add up to `max` exactly, except when there are more instances than
 * `max`: every instance still gets 1, so together they may send `instances` requests.
 */
export function concurrencyShare(max: number, instances: number, rank: number): number {
  if (instances <= 1) return max;
  const even = Math.floor(max / instances);
  return Math.max(1, even + (rank < max % instances ? 1 : 0));
}
