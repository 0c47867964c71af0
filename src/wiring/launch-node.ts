import type { NodeConfig } from '../config/gateway-config.js';
import type { NodeLauncher } from '../routing/node-registry.js';

/**
 * Starts the gateway's own simulated nodes on free local ports; other nodes are used as
 * they are. The simulator is imported only when the configuration has a simulated node.
 */
export const launchNode: NodeLauncher = async (node: NodeConfig) => {
  if (node.simulated === undefined) return { node, stop: async () => undefined };
  const { SimulatedNode } = await import('../simulator/simulated-node.js');
  const simulator = new SimulatedNode({
    firstByteMs: node.simulated.firstByteMs,
    tokensPerSecond: node.simulated.tokensPerSecond,
    reasoningField: node.simulated.reasoningField,
    protocol: node.protocol,
    scripts: node.simulated.scripts,
    prefixCache: node.simulated.prefixCache,
    prefillMsPerToken: node.simulated.prefillMsPerToken,
    maxNumSeqs: node.simulated.maxNumSeqs,
  });
  const baseUrl = await simulator.listen(node.simulated.port, '127.0.0.1');
  return { node: { ...node, baseUrl }, stop: () => simulator.close() };
};
