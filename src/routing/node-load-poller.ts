import type { LoadMetricsSettings } from '../config/gateway-config.js';
import { parseNodeLoad, type NodeLoadReport } from './parse-node-load.js';

/**
 * Reads a node's own load from its Prometheus endpoint on an interval, off the request
 * path (docs/routing-and-failover.md, "Load read from the node"): one read at a time, each
 * bounded in time (`timeout_ms`) and size (`max_bytes`). A read that fails (time-out,
 * non-2xx, too large, not a vLLM or SGLang page) reports nothing, and the node is routed on
 * the gateway's own count as if it were not read. `stop` ends it (node removed or
 * replaced, shutdown) and cancels a read in flight.
 */
export class NodeLoadPoller {
  private timer: NodeJS.Timeout | undefined;
  private readonly stopped = new AbortController();

  constructor(
    private readonly url: string,
    private readonly settings: LoadMetricsSettings,
    private readonly report: (load: NodeLoadReport | undefined) => void,
  ) {}

  /** The metrics URL of a node: as configured, else its base URL's origin + `/metrics`. */
  static urlOf(settings: LoadMetricsSettings, baseUrl: string): string {
    return settings.url ?? `${new URL(baseUrl).origin}/metrics`;
  }

  start(): void {
    void this.poll();
  }

  stop(): void {
    this.stopped.abort();
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async poll(): Promise<void> {
    if (this.stopped.signal.aborted) return;
    const load = await this.read().catch(() => undefined);
    if (this.stopped.signal.aborted) return;
    this.report(load);
    this.timer = setTimeout(() => void this.poll(), this.settings.intervalMs);
    this.timer.unref();
  }

  private async read(): Promise<NodeLoadReport | undefined> {
    const signal = AbortSignal.any([this.stopped.signal, AbortSignal.timeout(this.settings.timeoutMs)]);
    const response = await fetch(this.url, { signal, headers: { accept: 'text/plain' } });
    if (!response.ok || response.body === null) {
      await response.body?.cancel();
      return undefined;
    }
    const declared = Number(response.headers.get('content-length'));
    if (declared > this.settings.maxBytes) {
      await response.body.cancel();
      return undefined;
    }
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let page = '';
    let bytes = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      if (bytes > this.settings.maxBytes) {
        await reader.cancel();
        return undefined;
      }
      page += decoder.decode(value, { stream: true });
    }
    return parseNodeLoad(page + decoder.decode());
  }
}
