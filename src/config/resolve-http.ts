import { ConfigError } from './config-error.js';
import type { ConfigFile } from './config-schema.js';
import { DEFAULTS } from './defaults.js';
import type { HttpSettings } from './gateway-config.js';

type HttpFile = ConfigFile['http'];

/** The client-facing HTTP server's sizes and time limits with defaults; in-flight body budgets must hold a body. */
export function resolveHttp(file: HttpFile, source: string): HttpSettings {
  checkBodyBudgets(file, source);
  return {
    bodyLimitBytes: file?.body_limit_bytes ?? DEFAULTS.bodyLimitBytes,
    sseKeepaliveMs: file?.sse_keepalive_ms ?? DEFAULTS.sseKeepaliveMs,
    headersTimeoutMs: file?.headers_timeout_ms ?? DEFAULTS.http.headersTimeoutMs,
    requestTimeoutMs: file?.request_timeout_ms ?? DEFAULTS.http.requestTimeoutMs,
    bodyIdleTimeoutMs: file?.body_idle_timeout_ms ?? DEFAULTS.http.bodyIdleTimeoutMs,
    keepAliveTimeoutMs: file?.keep_alive_timeout_ms ?? DEFAULTS.http.keepAliveTimeoutMs,
    maxConnections: file?.max_connections ?? DEFAULTS.http.maxConnections,
    listenBacklog: file?.listen_backlog ?? DEFAULTS.http.listenBacklog,
    maxMessages: file?.max_messages ?? DEFAULTS.http.maxMessages,
    maxChoices: file?.max_choices ?? DEFAULTS.http.maxChoices,
    maxJsonDepth: file?.max_json_depth ?? DEFAULTS.http.maxJsonDepth,
    maxBodyBytesInFlight: file?.max_body_bytes_in_flight ?? DEFAULTS.http.maxBodyBytesInFlight,
    maxBodyBytesInFlightPerKey: file?.max_body_bytes_in_flight_per_key ?? DEFAULTS.http.maxBodyBytesInFlightPerKey,
    maxBodyBytesInFlightPerAccount:
      file?.max_body_bytes_in_flight_per_account ?? DEFAULTS.http.maxBodyBytesInFlightPerAccount,
    maxBodyBytesInFlightPerIp: file?.max_body_bytes_in_flight_per_ip ?? DEFAULTS.http.maxBodyBytesInFlightPerIp,
    maxDrainBytes: file?.max_drain_bytes ?? DEFAULTS.http.maxDrainBytes,
    drainTimeoutMs: file?.drain_timeout_ms ?? DEFAULTS.http.drainTimeoutMs,
  };
}

/** A body of the largest size allowed must fit one key's budget, and one key's budget the total. */
function checkBodyBudgets(http: HttpFile, source: string): void {
  const bodyLimit = http?.body_limit_bytes ?? DEFAULTS.bodyLimitBytes;
  const perKey = http?.max_body_bytes_in_flight_per_key ?? DEFAULTS.http.maxBodyBytesInFlightPerKey;
  const total = http?.max_body_bytes_in_flight ?? DEFAULTS.http.maxBodyBytesInFlight;
  if (perKey < bodyLimit)
    throw new ConfigError(
      source,
      'http.max_body_bytes_in_flight_per_key',
      `must be at least http.body_limit_bytes (${bodyLimit})`,
    );
  if (total < perKey)
    throw new ConfigError(
      source,
      'http.max_body_bytes_in_flight',
      `must be at least http.max_body_bytes_in_flight_per_key (${perKey})`,
    );
  const perAccount = http?.max_body_bytes_in_flight_per_account ?? DEFAULTS.http.maxBodyBytesInFlightPerAccount;
  const perIp = http?.max_body_bytes_in_flight_per_ip ?? DEFAULTS.http.maxBodyBytesInFlightPerIp;
  for (const [knob, value] of [
    ['max_body_bytes_in_flight_per_account', perAccount],
    ['max_body_bytes_in_flight_per_ip', perIp],
  ] as const) {
    if (value < bodyLimit) {
      throw new ConfigError(source, `http.${knob}`, `must be at least http.body_limit_bytes (${bodyLimit})`);
    }
  }
}
