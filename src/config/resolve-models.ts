import { ConfigError } from './config-error.js';
import type { ConfigFile } from './config-schema.js';
import { DEFAULTS } from './defaults.js';
import type { ModelConfig, ModelRoute, NodeConfig } from './gateway-config.js';
import { ModelAliasConflict, ModelCatalog } from './model-catalog.js';
import { reasoningProblem } from './protocol-reasoning.js';
import { resolvePricedFeatures, resolvePricing } from './resolve-priced-features.js';
import { resolveReasoning } from './resolve-reasoning.js';

type ModelFile = ConfigFile['models'][number];

/** The models with defaults, each routed to known nodes whose protocols can express its reasoning; aliases unique. */
export function resolveModels(
  file: readonly ModelFile[],
  nodesById: ReadonlyMap<string, NodeConfig>,
  source: string,
): ModelConfig[] {
  const created = Math.floor(Date.now() / 1000);
  const models = file.map((model, modelIndex) => {
    const resolved = resolveModel(model, `models[${modelIndex}]`, nodesById, created, source);
    checkReasoningOnRoutes(resolved, `models[${modelIndex}]`, nodesById, source);
    return resolved;
  });
  checkModelAliases(models, source);
  return models;
}

function resolveModel(
  model: ModelFile,
  path: string,
  nodesById: ReadonlyMap<string, NodeConfig>,
  created: number,
  source: string,
): ModelConfig {
  return {
    id: model.id,
    ...(model.aliases === undefined ? {} : { aliases: model.aliases }),
    ownedBy: model.owned_by ?? DEFAULTS.ownedBy,
    created,
    contextLength: model.context_length,
    maxOutputTokens: model.max_output_tokens,
    defaultMaxTokens: model.default_max_tokens,
    unresolvedInputTokens: model.unresolved_input_tokens,
    reasoning: model.reasoning && resolveReasoning(model.reasoning, `${path}.reasoning`, source),
    pricing: model.pricing && resolvePricing(model.pricing),
    ...(model.priced_features === undefined ? {} : { pricedFeatures: resolvePricedFeatures(model.priced_features) }),
    ...(model.request_log?.bodies === true ? { requestLogBodies: true } : {}),
    routing: {
      affinity: model.routing?.affinity ?? DEFAULTS.routing.affinity,
      affinityLoadFactor: model.routing?.affinity_load_factor ?? DEFAULTS.routing.affinityLoadFactor,
    },
    routes: resolveRoutes(model, path, nodesById, source),
  };
}

/** A model's routes with defaults, each to a node the file declares. */
function resolveRoutes(
  model: ModelFile,
  path: string,
  nodesById: ReadonlyMap<string, NodeConfig>,
  source: string,
): ModelRoute[] {
  return model.routes.map((route, routeIndex) => {
    if (!nodesById.has(route.node)) {
      throw new ConfigError(source, `${path}.routes[${routeIndex}].node`, `unknown node "${route.node}"`);
    }
    return {
      nodeId: route.node,
      upstreamModel: route.model ?? model.id,
      weight: route.weight ?? DEFAULTS.weight,
      priority: route.priority ?? 0,
    };
  });
}

/** Each protocol the model is routed to checks what it can express (levels, budgets…). */
function checkReasoningOnRoutes(
  model: ModelConfig,
  path: string,
  nodesById: ReadonlyMap<string, NodeConfig>,
  source: string,
): void {
  for (const route of model.routes) {
    const node = nodesById.get(route.nodeId) as NodeConfig;
    const problem = reasoningProblem(node.protocol, model);
    if (problem !== undefined) {
      throw new ConfigError(
        source,
        `${path}.${problem.path}`,
        `${problem.problem} (node "${node.id}" speaks ${node.protocol})`,
      );
    }
  }
}

/** Aliases no two models claim, none another model's id (PRODUCT.md decision 25). */
function checkModelAliases(models: readonly ModelConfig[], source: string): void {
  try {
    new ModelCatalog(models);
  } catch (error) {
    if (error instanceof ModelAliasConflict) throw new ConfigError(source, error.path, error.problem);
    throw error;
  }
}
