import type { TelemetrySettings } from '../config/gateway-config.js';

/**
 * Whether traces are exported: an OTLP endpoint in the file (`telemetry.otlp.endpoint`) or
 * in the standard `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `OTEL_EXPORTER_OTLP_ENDPOINT`
 * variables, and the SDK not switched off (`OTEL_SDK_DISABLED=true`).
 */
export function tracingWanted(telemetry: TelemetrySettings, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  return (
    telemetry.endpoint !== undefined ||
    nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) ||
    nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT)
  );
}

function nonEmpty(value: string | undefined): boolean {
  return value !== undefined && value.trim() !== '';
}
