import type { IncomingMessage, ServerResponse } from 'node:http';
import { ConfigError } from '../../config/config-error.js';
import { resolveNode } from '../../config/resolve-node.js';
import { gatewayError, invalidValue, validationFailed } from '../../errors/gateway-error.js';
import type { GatewayServices } from '../../gateway-services.js';
import type { RequestContext } from '../../context/request-context.js';
import { schemaValidationFailed } from '../../protocol/openai/validate-chat-request.js';
import type { NodeState } from '../../routing/node-state.js';
import { validateAddNode } from '../../validation/generated/validate-add-node.js';
import { readJsonObject } from './read-json-body.js';
import { sendJson } from '../../reply/send-json.js';

const ADMIN_BODY_LIMIT = 64 * 1024;

/** What an operator sees of a node. */
function nodeView(services: GatewayServices, state: NodeState) {
  return {
    id: state.id,
    provider: state.node.provider,
    base_url: state.node.baseUrl,
    state: state.condition(),
    source: services.routes.isRuntimeNode(state.id) ? 'admin' : 'config',
    in_flight: state.inFlight,
    max_concurrency: state.node.maxConcurrency,
    effective_max_concurrency: state.effectiveMaxConcurrency,
    weight: state.node.weight,
    error_rate: Math.round(state.errorRate() * 1000) / 1000,
    latency_ms: state.latencyMs === undefined ? null : Math.round(state.latencyMs * 100) / 100,
    cooldown_ms: state.cooldownLeftMs(),
    reported_load: reportedLoadView(state),
  };
}

/** What the node last reported of its own load (`load_metrics`), while fresh; null otherwise. */
function reportedLoadView(state: NodeState) {
  const reported = state.reportedLoad();
  return reported === undefined
    ? null
    : { running: reported.running, waiting: reported.waiting, kv_cache_usage: reported.kvCacheUsage ?? null };
}

function findNode(services: GatewayServices, id: string): NodeState {
  const state = services.nodes.get(id);
  if (state === undefined) {
    throw gatewayError('not_found', { params: { kind: 'node', id } });
  }
  return state;
}

export type AdminHandler = (
  request: IncomingMessage,
  response: ServerResponse,
  context: RequestContext,
  id: string,
) => Promise<void>;

/** Node management: list, add, remove, drain, enable (no restart, in-flight requests finish). */
export function nodeRoutes(
  services: GatewayServices,
): Array<{ method: string; pattern: RegExp; handler: AdminHandler }> {
  return [
    {
      method: 'GET',
      pattern: /^\/admin\/v1\/nodes$/,
      handler: async (_request, response, context) => {
        sendJson(response, context, 200, {
          object: 'list',
          data: services.nodes.list().map((state) => nodeView(services, state)),
        });
      },
    },
    {
      method: 'POST',
      pattern: /^\/admin\/v1\/nodes$/,
      handler: async (request, response, context) => {
        const body = await readJsonObject(
          request,
          ADMIN_BODY_LIMIT,
          context.snapshot.config.http.maxJsonDepth,
          context.snapshot.config.http.bodyIdleTimeoutMs,
        );
        if (!validateAddNode(body)) throw schemaValidationFailed(validateAddNode.errors);
        if (services.routes.hasNode(body.id)) {
          throw validationFailed('id', 'node_exists', { id: body.id });
        }
        body.models.forEach((route, index) => {
          if (!context.snapshot.models.has(route.model)) {
            throw validationFailed(`models[${index}].model`, 'unknown_model', { model: route.model });
          }
        });
        const { models, ...nodeFile } = body;
        let node;
        try {
          node = resolveNode(
            nodeFile,
            'node',
            'request',
            context.snapshot.config.timeouts,
            context.snapshot.config.nodeReplies,
          );
        } catch (error) {
          if (!(error instanceof ConfigError)) throw error;
          const param = error.path.replace(/^node\./, '');
          throw invalidValue(param, 'config_check', { problem: error.problem });
        }
        const state = await services.nodes.put(node);
        services.routes.addRuntimeNode({
          node,
          routes: models.map((route) => ({
            model: route.model,
            upstreamModel: route.upstream_model ?? route.model,
            weight: route.weight ?? 1,
            priority: route.priority ?? 0,
          })),
        });
        sendJson(response, context, 201, nodeView(services, state));
      },
    },
    {
      method: 'DELETE',
      pattern: /^\/admin\/v1\/nodes\/([^/]+)$/,
      handler: async (_request, response, context, id) => {
        const view = nodeView(services, findNode(services, id));
        services.routes.removeRuntimeNode(id);
        services.nodes.remove(id);
        sendJson(response, context, 200, { ...view, state: 'removed' });
      },
    },
    {
      method: 'POST',
      pattern: /^\/admin\/v1\/nodes\/([^/]+)\/drain$/,
      handler: async (_request, response, context, id) => {
        const state = findNode(services, id);
        state.setDrained(true);
        sendJson(response, context, 200, nodeView(services, state));
      },
    },
    {
      method: 'POST',
      pattern: /^\/admin\/v1\/nodes\/([^/]+)\/enable$/,
      handler: async (_request, response, context, id) => {
        const state = findNode(services, id);
        state.setDrained(false);
        state.recordSuccess(undefined);
        sendJson(response, context, 200, nodeView(services, state));
      },
    },
  ];
}
