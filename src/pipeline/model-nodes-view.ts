import type { NodeRegistry } from '../routing/node-registry.js';
import type { RouteView } from '../routing/route-table.js';
import type { DoorNode, ModelNodesView } from './front-door.js';

/**
 * The front doors' read-only view of the nodes (pipeline/front-door.ts): the routes of the
 * request's configuration snapshot and the nodes' live state, without copying a node.
 */
export function modelNodesView(routes: RouteView, nodes: NodeRegistry): ModelNodesView {
  return {
    nodesOf(modelId) {
      const found: DoorNode[] = [];
      for (const route of routes.routes(modelId)) {
        const state = nodes.get(route.nodeId);
        if (state !== undefined) found.push(state);
      }
      return found;
    },
    node: (nodeId) => nodes.get(nodeId),
  };
}
