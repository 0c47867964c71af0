import type { UnauthenticatedCount } from '../store/request-log-rows.js';

/** The address counts go to once `maxAddresses` distinct ones were seen since the last flush. */
export const OTHER_ADDRESSES = '_other';

interface OpenCount {
  readonly clientAddress: string;
  readonly reason: string;
  count: number;
  readonly firstSeenMs: number;
  lastSeenMs: number;
}

/**
 * Requests without a valid key, counted per client address and reason (the error code)
 * between two flushes: at most `maxAddresses` addresses apart, the rest under `_other`,
 * so a scan from many addresses costs a bounded map, not a row each.
 */
export class UnauthenticatedCounts {
  private counts = new Map<string, OpenCount>();
  private readonly addresses = new Set<string>();

  constructor(private readonly maxAddresses: () => number) {}

  add(clientAddress: string, reason: string, nowMs: number): void {
    const address =
      this.addresses.has(clientAddress) || this.addresses.size < this.maxAddresses() ? clientAddress : OTHER_ADDRESSES;
    this.addresses.add(address);
    const id = `${address}\u0000${reason}`;
    const open = this.counts.get(id);
    if (open === undefined) {
      this.counts.set(id, { clientAddress: address, reason, count: 1, firstSeenMs: nowMs, lastSeenMs: nowMs });
    } else {
      open.count++;
      open.lastSeenMs = nowMs;
    }
  }

  get size(): number {
    return this.counts.size;
  }

  /** The counts since the last take; starts afresh. */
  take(): UnauthenticatedCount[] {
    const taken = [...this.counts.values()];
    this.counts = new Map();
    this.addresses.clear();
    return taken;
  }
}
