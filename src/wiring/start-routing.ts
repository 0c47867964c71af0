import type { GatewayConfig } from '../config/gateway-config.js';
import type { Logger } from '../observability/logger.js';
import { Cluster } from '../routing/cluster/cluster.js';
import { NodeRegistry } from '../routing/node-registry.js';
import { RouteTable } from '../routing/route-table.js';
import type { Store } from '../store/store.js';
import { launchNode } from './launch-node.js';

/** The nodes, the other instances sharing their state, and which nodes serve which model. */
export interface Routing {
  readonly cluster: Cluster;
  readonly nodes: NodeRegistry;
  readonly routes: RouteTable;
}

/** Joins the instances on the store, starts the configured nodes and builds the route table. */
export async function startRouting(config: GatewayConfig, store: Store, logger: Logger): Promise<Routing> {
  const cluster = await Cluster.join(store, logger);
  const nodes = new NodeRegistry(launchNode, config.health, cluster);
  await nodes.reconcile(config.nodes);
  await cluster.follow(nodes);
  return { cluster, nodes, routes: new RouteTable(config.models, config.nodes) };
}
