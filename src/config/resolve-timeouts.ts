import type { ConfigFile } from './config-schema.js';
import type { TimeoutSettings } from './gateway-config.js';

/** Node time limits: each field the file leaves out comes from `base` (the gateway's, for a node). */
export function resolveTimeouts(file: ConfigFile['timeouts'], base: TimeoutSettings): TimeoutSettings {
  return {
    connectMs: file?.connect_ms ?? base.connectMs,
    firstByteMs: file?.first_byte_ms ?? base.firstByteMs,
    idleMs: file?.idle_ms ?? base.idleMs,
    totalMs: file?.total_ms ?? base.totalMs,
    minTokensPerSecond: file?.min_tokens_per_second ?? base.minTokensPerSecond,
  };
}
