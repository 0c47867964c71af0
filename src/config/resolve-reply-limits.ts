import type { ConfigFile } from './config-schema.js';
import type { NodeReplyLimits } from './gateway-config.js';

/** Caps on node replies: each field the file leaves out comes from `defaults` (the gateway's, for a node). */
export function resolveReplyLimits(replies: ConfigFile['node_replies'], defaults: NodeReplyLimits): NodeReplyLimits {
  return {
    maxJsonBytes: replies?.max_json_bytes ?? defaults.maxJsonBytes,
    maxEventBytes: replies?.max_event_bytes ?? defaults.maxEventBytes,
  };
}
