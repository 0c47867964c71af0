import type { TelemetrySettings } from '../config/gateway-config.js';
import type { startTracing } from './tracing.js';
import { tracingWanted } from './tracing-wanted.js';

/** What starts tracing (telemetry/tracing.ts). */
export type StartTracing = typeof startTracing;

/**
 * The tracing module, imported only when traces are exported: the OpenTelemetry SDK's
 * modules hold ~18 MiB of memory once loaded, which a gateway without a collector never needs.
 */
export async function loadTracing(
  telemetry: TelemetrySettings,
  env: NodeJS.ProcessEnv = process.env,
): Promise<StartTracing | undefined> {
  return tracingWanted(telemetry, env) ? (await import('./tracing.js')).startTracing : undefined;
}
