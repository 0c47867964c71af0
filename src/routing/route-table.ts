import type { ModelConfig, ModelRoute, NodeConfig } from '../config/gateway-config.js';

/** A node added through the admin API, with the models it serves. */
export interface RuntimeNode {
  readonly node: NodeConfig;
  readonly routes: ReadonlyArray<{
    readonly model: string;
    readonly upstreamModel: string;
    readonly weight: number;
    readonly priority: number;
  }>;
}

/** The routes of every model at one moment: frozen, so a request holding it sees one routing. */
export interface RouteView {
  routes(modelId: string): readonly ModelRoute[];
}

const NO_ROUTES: readonly ModelRoute[] = Object.freeze([]);

/**
 * Which nodes serve which model: the configuration's routes plus those of nodes added at
 * runtime. Runtime nodes survive a configuration reload unless the file now declares a
 * node with the same id (the file wins).
 */
export class RouteTable {
  private configRoutes = new Map<string, readonly ModelRoute[]>();
  private configNodeIds = new Set<string>();
  private readonly runtimeNodes = new Map<string, RuntimeNode>();
  private current: RouteView = { routes: () => NO_ROUTES };
  /** Called with the new view when a runtime node is added or removed (a reload takes `view()` itself). */
  onRuntimeChange: ((view: RouteView) => void) | undefined;

  constructor(models: readonly ModelConfig[], nodes: readonly NodeConfig[]) {
    this.setConfig(models, nodes);
  }

  setConfig(models: readonly ModelConfig[], nodes: readonly NodeConfig[]): void {
    this.configRoutes = new Map(models.map((model) => [model.id, model.routes]));
    this.configNodeIds = new Set(nodes.map((node) => node.id));
    for (const id of this.runtimeNodes.keys()) if (this.configNodeIds.has(id)) this.runtimeNodes.delete(id);
    this.rebuild();
  }

  /** Whether a node id is taken, by the configuration or at runtime. */
  hasNode(id: string): boolean {
    return this.configNodeIds.has(id) || this.runtimeNodes.has(id);
  }

  isRuntimeNode(id: string): boolean {
    return this.runtimeNodes.has(id);
  }

  addRuntimeNode(entry: RuntimeNode): void {
    this.runtimeNodes.set(entry.node.id, entry);
    this.rebuild();
    this.onRuntimeChange?.(this.current);
  }

  removeRuntimeNode(id: string): void {
    this.runtimeNodes.delete(id);
    this.rebuild();
    this.onRuntimeChange?.(this.current);
  }

  /** Nodes added at runtime, to keep across reloads. */
  runtimeNodeConfigs(): NodeConfig[] {
    return [...this.runtimeNodes.values()].map((entry) => entry.node);
  }

  routes(modelId: string): readonly ModelRoute[] {
    return this.current.routes(modelId);
  }

  /** The routes now, frozen: what a configuration snapshot holds. */
  view(): RouteView {
    return this.current;
  }

  private rebuild(): void {
    const merged = new Map<string, ModelRoute[]>();
    for (const [modelId, routes] of this.configRoutes) merged.set(modelId, [...routes]);
    for (const { node, routes } of this.runtimeNodes.values()) {
      for (const route of routes) {
        merged.get(route.model)?.push({
          nodeId: node.id,
          upstreamModel: route.upstreamModel,
          weight: route.weight,
          priority: route.priority,
        });
      }
    }
    for (const routes of merged.values()) Object.freeze(routes);
    this.current = Object.freeze({ routes: (modelId: string) => merged.get(modelId) ?? NO_ROUTES });
  }
}
