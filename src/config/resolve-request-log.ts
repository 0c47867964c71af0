import type { ConfigFile } from './config-schema.js';
import { DEFAULTS } from './defaults.js';
import type { ModelConfig, RequestLogSettings } from './gateway-config.js';

/** The request record's settings with defaults; `models` tell whether some model keeps bodies. */
export function resolveRequestLog(file: ConfigFile['request_log'], models: readonly ModelConfig[]): RequestLogSettings {
  return {
    enabled: file?.enabled ?? DEFAULTS.requestLog.enabled,
    retentionDays: file?.retention_days ?? DEFAULTS.requestLog.retentionDays,
    maxRows: file?.max_rows ?? DEFAULTS.requestLog.maxRows,
    bodyRetentionDays: file?.body_retention_days ?? DEFAULTS.requestLog.bodyRetentionDays,
    maxBodyBytes: file?.max_body_bytes ?? DEFAULTS.requestLog.maxBodyBytes,
    flushIntervalMs: file?.flush_interval_ms ?? DEFAULTS.requestLog.flushIntervalMs,
    maxBatchRows: file?.max_batch_rows ?? DEFAULTS.requestLog.maxBatchRows,
    maxQueueRows: file?.max_queue_rows ?? DEFAULTS.requestLog.maxQueueRows,
    writeTimeoutMs: file?.write_timeout_ms ?? DEFAULTS.requestLog.writeTimeoutMs,
    purgeIntervalMs: file?.purge_interval_ms ?? DEFAULTS.requestLog.purgeIntervalMs,
    maxUnauthenticatedAddresses: file?.max_unauthenticated_addresses ?? DEFAULTS.requestLog.maxUnauthenticatedAddresses,
    someModelKeepsBodies: models.some((model) => model.requestLogBodies === true),
  };
}
