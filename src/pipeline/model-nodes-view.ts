import type { GatewayServices } from '../gateway-services.js';
import type { DoorNode, ModelNodesView } from './front-door.js';

/**
 * The front doors' read-only view of the nodes (pipeline/front-door.ts): the route table
 * and the node registry as the request finds them, read at each call (a reload in between
 * is seen), without copying a node.
 */
export function modelNodesView(services: GatewayServices): ModelNodesView {
  return {
    nodesOf(modelId) {
      const nodes: DoorNode[] = [];
      for (const route of services.routes.routes(modelId)) {
        const state = services.nodes.get(route.nodeId);
        if (state !== undefined) nodes.push(state);
      }
      return nodes;
    },
    node: (nodeId) => services.nodes.get(nodeId),
  };
}
