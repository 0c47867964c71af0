import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from '../../observability/logger.js';
import type { Store } from '../../store/store.js';
import { concurrencyShare } from './concurrency-share.js';

/** How often each instance says it is alive. */
export const HEARTBEAT_INTERVAL_MS = 2_000;
/** An instance not heard from for this long is dead: its row is deleted and its share goes to the others. */
export const INSTANCE_EXPIRY_MS = 3 * HEARTBEAT_INTERVAL_MS;

/** A unique id an operator can read: host, process id and a random suffix. */
export function newInstanceId(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

/**
 * The live gateway instances on a shared store, as this one sees them: a heartbeat every
 * HEARTBEAT_INTERVAL_MS (off the request path) refreshes the list and deletes instances
 * silent for INSTANCE_EXPIRY_MS; joins and departures announced by others refresh it at
 * once. While the store is unreachable the last list is kept.
 */
export class InstanceRegistry {
  private count = 1;
  private rank = 0;
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;
  private beatAgain = false;
  private failing = false;
  private left = false;

  constructor(
    private readonly store: Pick<Store, 'cluster' | 'onChange'>,
    readonly id: string,
    private readonly logger: Logger,
  ) {}

  /** Registers this instance (one heartbeat) and keeps it registered. */
  async join(): Promise<void> {
    this.store.onChange((change) => {
      if (change.kind === 'instances' || change.kind === 'all') void this.beat();
    });
    await this.beat();
    this.timer = setInterval(() => void this.beat(), HEARTBEAT_INTERVAL_MS);
    this.timer.unref();
  }

  /** Live instances, this one included. */
  get instanceCount(): number {
    return this.count;
  }

  /** This instance's part of a node's max_concurrency. */
  share(maxConcurrency: number): number {
    return concurrencyShare(maxConcurrency, this.count, this.rank);
  }

  /** Stops the heartbeat and removes this instance, so the others take over its share now. */
  async leave(): Promise<void> {
    this.left = true;
    clearInterval(this.timer);
    await this.beating;
    await this.store.cluster.leave(this.id);
  }

  /** One heartbeat at a time; a request made meanwhile runs one more right after it. */
  private beat(): Promise<void> {
    if (this.left) return Promise.resolve();
    if (this.beating !== undefined) {
      this.beatAgain = true;
      return this.beating;
    }
    this.beating = (async () => {
      do {
        this.beatAgain = false;
        await this.heartbeatOnce();
      } while (this.beatAgain && !this.left);
      this.beating = undefined;
    })();
    return this.beating;
  }

  private async heartbeatOnce(): Promise<void> {
    try {
      this.setLive(await this.store.cluster.heartbeat(this.id, INSTANCE_EXPIRY_MS));
      if (this.failing) this.logger.info({ instances: this.count }, 'instance heartbeat works again');
      this.failing = false;
    } catch (error) {
      if (!this.failing)
        this.logger.warn(
          { err: error, instances: this.count },
          'instance heartbeat failed; keeping the last known instances',
        );
      this.failing = true;
    }
  }

  private setLive(ids: readonly string[]): void {
    const live = ids.includes(this.id) ? [...ids] : [...ids, this.id];
    live.sort();
    const count = live.length;
    const rank = live.indexOf(this.id);
    if (count !== this.count || rank !== this.rank) {
      this.logger.info({ instance: this.id, instances: count, rank }, 'gateway instances sharing the store changed');
    }
    this.count = count;
    this.rank = rank;
  }
}
