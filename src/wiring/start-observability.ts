import type { GatewayConfig } from '../config/gateway-config.js';
import type { Logger } from '../observability/logger.js';
import { GatewayMetrics, type MetricsSources } from '../observability/metrics.js';
import { RequestLogWriter } from '../request-log/request-log-writer.js';
import type { Store } from '../store/store.js';
import type { StartTracing } from '../telemetry/load-tracing.js';
import type { Tracing } from '../telemetry/tracing.js';

/** Metrics, the request record's writer and traces. */
export interface Observability {
  readonly metrics: GatewayMetrics;
  /** Undefined when `request_log.enabled` is off. */
  readonly requestRecords: RequestLogWriter | undefined;
  /** Undefined when off (no OTLP endpoint). */
  readonly tracing: Tracing | undefined;
}

/**
 * Makes the metrics registry, the request record's writer (not started: its settings come
 * from `current`, the configuration now, which may be read only once the services exist) and the trace exporter.
 */
export function startObservability(
  config: GatewayConfig,
  current: () => GatewayConfig,
  store: Store,
  sources: MetricsSources,
  logger: Logger,
  /** Loaded only when traces are exported (`loadTracing`). */
  startTracing: StartTracing | undefined,
): Observability {
  const metrics = new GatewayMetrics(sources, { processMetrics: config.metrics.enabled });
  const requestRecords = config.requestLog.enabled
    ? new RequestLogWriter(
        store.requestLog,
        { settings: () => current().requestLog, knownSecrets: () => knownSecrets(current()) },
        logger,
        metrics.registry,
      )
    : undefined;
  const tracing = startTracing?.(config.telemetry, {
    onDrop: (reason, count) => metrics.traceSpansDropped(reason, count),
  });
  if (tracing !== undefined)
    logger.info({ capture_content: config.telemetry.captureContent }, 'traces exported over OTLP');
  return { metrics, requestRecords, tracing };
}

/** The secrets a kept request or reply body must not hold: the keys of the file, the admin key, the nodes' keys. */
function knownSecrets(config: GatewayConfig): string[] {
  const secrets = config.keys.map((key) => key.key);
  if (config.adminKey !== undefined) secrets.push(config.adminKey);
  for (const node of config.nodes) if (node.apiKey !== undefined) secrets.push(node.apiKey);
  return secrets;
}
