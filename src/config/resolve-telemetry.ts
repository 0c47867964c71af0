import type { ConfigFile } from './config-schema.js';
import { DEFAULTS } from './defaults.js';
import type { TelemetrySettings } from './gateway-config.js';

/** OpenTelemetry trace export with defaults; a batch is never larger than the queue. */
export function resolveTelemetry(file: ConfigFile['telemetry']): TelemetrySettings {
  const maxQueueSpans = file?.max_queue_spans ?? DEFAULTS.telemetry.maxQueueSpans;
  return {
    endpoint: tracesUrl(file?.otlp?.endpoint),
    headers: file?.otlp?.headers ?? {},
    timeoutMs: file?.otlp?.timeout_ms ?? DEFAULTS.telemetry.timeoutMs,
    serviceName: file?.service_name ?? DEFAULTS.telemetry.serviceName,
    sampleRatio: file?.sample_ratio ?? 1,
    captureContent: file?.capture_content ?? false,
    maxContentChars: file?.max_content_chars ?? DEFAULTS.telemetry.maxContentChars,
    maxQueueSpans,
    batchSpans: Math.min(file?.batch_spans ?? DEFAULTS.telemetry.batchSpans, maxQueueSpans),
    batchIntervalMs: file?.batch_interval_ms ?? DEFAULTS.telemetry.batchIntervalMs,
  };
}

/** An OTLP/HTTP base address as the traces URL: `/v1/traces` appended unless the path already ends so (as OTEL_EXPORTER_OTLP_ENDPOINT). */
function tracesUrl(endpoint: string | undefined): string | undefined {
  if (endpoint === undefined) return undefined;
  const trimmed = endpoint.replace(/\/+$/, '');
  return trimmed.endsWith('/v1/traces') ? trimmed : `${trimmed}/v1/traces`;
}
