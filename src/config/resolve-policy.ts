import type { ConfigFile } from './config-schema.js';
import type { PolicyConfig } from './gateway-config.js';

type PolicyFile = NonNullable<ConfigFile['accounts']>[number]['policy'];

/** The features an account or key is denied, if any. */
export function resolvePolicy(policy: PolicyFile): PolicyConfig | undefined {
  return policy && { streaming: policy.streaming, maxReasoningEffort: policy.max_reasoning_effort };
}
