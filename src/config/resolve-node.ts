import { ConfigError } from './config-error.js';
import type { NodeConfigFile } from './config-schema.js';
import { DEFAULTS } from './defaults.js';
import type {
  LoadMetricsSettings,
  NativeApi,
  NodeConfig,
  NodeReplyLimits,
  SimulatedNodeSettings,
  TimeoutSettings,
} from './gateway-config.js';
import { resolveReplyLimits } from './resolve-reply-limits.js';
import { resolveTimeouts } from './resolve-timeouts.js';
import { compileSimulatorScripts, ScriptError, type SimulatorScriptsFile } from './simulator-scripts.js';
import { DEFAULT_ANTHROPIC_VERSION, DEFAULT_BASE_URLS, type WireProtocol } from './wire-protocols.js';

type SimulatedFile = NonNullable<NodeConfigFile['simulated']>;

/** Applies defaults to one schema-valid node entry; `path` names it in errors. */
export function resolveNode(
  node: NodeConfigFile,
  path: string,
  source: string,
  timeouts: TimeoutSettings,
  replies: NodeReplyLimits = DEFAULTS.nodeReplies,
): NodeConfig {
  const defaultBaseUrl = node.provider === 'simulated' ? undefined : DEFAULT_BASE_URLS[node.provider];
  if (node.provider !== 'simulated' && node.base_url === undefined && defaultBaseUrl === undefined) {
    throw new ConfigError(source, `${path}.base_url`, `is required for provider ${node.provider}`);
  }
  if (node.provider !== 'simulated' && node.simulated !== undefined) {
    throw new ConfigError(source, `${path}.simulated`, 'applies only to provider simulated');
  }
  const simulated = node.provider === 'simulated' ? (node.simulated ?? {}) : undefined;
  const protocol = node.provider === 'simulated' ? (simulated?.protocol ?? 'openai') : node.provider;
  checkProtocolOptions(node, protocol, path, source);
  return {
    id: node.id,
    provider: node.provider,
    protocol,
    baseUrl: (node.base_url ?? defaultBaseUrl ?? '').replace(/\/+$/, ''),
    apiKey: node.api_key,
    maxConcurrency: node.max_concurrency ?? DEFAULTS.maxConcurrency,
    weight: node.weight ?? DEFAULTS.weight,
    timeouts: resolveTimeouts(node.timeouts, timeouts),
    replies: resolveReplyLimits(node.replies, replies),
    reasoningParam: node.reasoning_param ?? 'reasoning_effort',
    maxTokensField: node.max_tokens_field ?? 'max_tokens',
    nativeApis: nativeApisOf(protocol, node.apis),
    anthropicVersion: node.anthropic_version ?? DEFAULT_ANTHROPIC_VERSION,
    simulated: simulated && resolveSimulated(simulated, path, source),
    ...(node.load_metrics === undefined ? {} : { loadMetrics: resolveLoadMetrics(node.load_metrics) }),
  };
}

/** Options that only one wire protocol understands are refused on nodes of another. */
function checkProtocolOptions(node: NodeConfigFile, protocol: WireProtocol, path: string, source: string): void {
  if (node.reasoning_param !== undefined && protocol !== 'openai') {
    throw new ConfigError(source, `${path}.reasoning_param`, 'applies only to OpenAI-protocol nodes');
  }
  if (node.max_tokens_field !== undefined && protocol !== 'openai') {
    throw new ConfigError(source, `${path}.max_tokens_field`, 'applies only to OpenAI-protocol nodes');
  }
  if (node.apis !== undefined && protocol !== 'openai') {
    throw new ConfigError(source, `${path}.apis`, 'applies only to OpenAI-protocol nodes');
  }
  if (node.anthropic_version !== undefined && protocol !== 'anthropic') {
    throw new ConfigError(source, `${path}.anthropic_version`, 'applies only to Anthropic-protocol nodes');
  }
  if (node.apis !== undefined && !node.apis.includes('chat')) {
    throw new ConfigError(source, `${path}.apis`, 'must include chat: every node serves Chat Completions');
  }
}

/** A simulated node's behaviour with defaults. */
function resolveSimulated(simulated: SimulatedFile, path: string, source: string): SimulatedNodeSettings {
  return {
    firstByteMs: simulated.first_byte_ms ?? DEFAULTS.simulated.firstByteMs,
    tokensPerSecond: simulated.tokens_per_second ?? DEFAULTS.simulated.tokensPerSecond,
    reasoningField: simulated.reasoning_field ?? DEFAULTS.simulated.reasoningField,
    port: simulated.port ?? DEFAULTS.simulated.port,
    scripts: resolveScripts(simulated.scripts, path, source),
    prefixCache: simulated.prefix_cache && {
      capacityTokens: simulated.prefix_cache.capacity_tokens,
      blockTokens: simulated.prefix_cache.block_tokens ?? DEFAULTS.simulated.blockTokens,
    },
    prefillMsPerToken: simulated.prefill_ms_per_token ?? DEFAULTS.simulated.prefillMsPerToken,
    maxNumSeqs: simulated.max_num_seqs,
  };
}

/** Checks a simulated node's scripts at load (regular expressions, rule shape, placeholders). */
function resolveScripts(scripts: SimulatorScriptsFile | undefined, path: string, source: string): SimulatorScriptsFile {
  try {
    compileSimulatorScripts(scripts ?? {});
  } catch (error) {
    if (error instanceof ScriptError)
      throw new ConfigError(source, `${path}.simulated.scripts.${error.path}`, error.problem);
    throw error;
  }
  return scripts ?? {};
}

/** Where and how often the node's load is read, with defaults. */
function resolveLoadMetrics(file: NonNullable<NodeConfigFile['load_metrics']>): LoadMetricsSettings {
  return {
    url: file.url,
    intervalMs: file.interval_ms ?? DEFAULTS.loadMetrics.intervalMs,
    timeoutMs: file.timeout_ms ?? DEFAULTS.loadMetrics.timeoutMs,
    maxBytes: file.max_bytes ?? DEFAULTS.loadMetrics.maxBytes,
  };
}

/** The APIs a node serves natively besides Chat Completions (NodeConfig.nativeApis). */
function nativeApisOf(
  protocol: WireProtocol,
  apis: readonly ('chat' | 'responses')[] | undefined,
): ReadonlySet<NativeApi> {
  if (protocol === 'anthropic') return new Set(['messages']);
  return new Set(apis?.includes('responses') === true ? ['responses'] : []);
}
