import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { anthropicMessageBody, anthropicStreamEvents, parseAnthropicRequest } from './anthropic-wire.js';
import { chatStreamEvents, type ChatStreamEvents } from './chat-stream-events.js';
import { completionBody } from './completion-body.js';
import type { ReasoningField } from './completion-identity.js';
import { DEFAULT_FAILURE_BODY, FaultInjector, type FaultDecision } from './fault-injector.js';
import { parseFaultSettings, type FaultSettings } from './fault-settings.js';
import { geminiResponseBody, geminiStreamEvents, parseGeminiRequest } from './gemini-wire.js';
import { openaiControls } from './openai-controls.js';
import { chatBodyOfResponsesRequest, completionUsage, responsesBody, responsesStreamEvents } from './responses-wire.js';
import { parseChatRequest } from './parse-chat-request.js';
import { planCompletion, type CompletionPlan } from './plan-completion.js';
import { PrefixCache } from './prefix-cache.js';
import { DEFAULT_BLOCK_TOKENS, promptBlockHashes } from './prompt-blocks.js';
import { errorBody, type SimulatedProtocol } from './protocol-errors.js';
import { readRequestBody } from './read-request-body.js';
import { redactHeaders } from './redact-headers.js';
import { sendJson } from './send-json.js';
import { SimulatorError } from './simulator-error.js';
import { scriptFor } from './simulator-script.js';
import { SequenceSlots } from './sequence-slots.js';
import { simulatorMetrics } from './simulator-metrics.js';
import {
  compileSimulatorScripts,
  type SimulatorScripts,
  type SimulatorScriptsFile,
} from '../config/simulator-scripts.js';
import { writeChatStream } from './write-chat-stream.js';

export type { FailureFault, FaultSettings } from './fault-settings.js';
export type { ReasoningField } from './completion-identity.js';
export type { SimulatedProtocol } from './protocol-errors.js';
export type { ScriptRuleFile, SimulatorScriptsFile } from '../config/simulator-scripts.js';

/** Options of one simulated OpenAI-compatible node. */
export interface SimulatedNodeOptions {
  /** Delay before the first byte of any chat-completion response, errors included (default 0). */
  firstByteMs?: number;
  /** Stream pacing; 0 or undefined writes the whole stream at once. */
  tokensPerSecond?: number;
  /** Field carrying reasoning text in `message` and `delta` (default 'reasoning_content'). */
  reasoningField?: ReasoningField;
  /** Prompts with more tokens than this get 400 `context_length_exceeded`. */
  contextLength?: number;
  /** Faults active from the start (same as calling setFaults). */
  faults?: FaultSettings;
  /** Seed of the PRNG behind the ratio faults (default 1). */
  seed?: number;
  /**
   * The wire protocol spoken (default 'openai'): 'anthropic' serves `POST …/messages`
   * (base URL …/v1), 'gemini' serves `POST …/models/{model}:generateContent` and
   * `:streamGenerateContent?alt=sse` (base URL …/v1beta). Errors use the protocol's body shape.
   */
  protocol?: SimulatedProtocol;
  /** When set, requests must carry this key the protocol's way (Bearer, x-api-key, x-goog-api-key). */
  apiKey?: string;
  /** Scripted answers by model name (`"*"`: every other model), as in the YAML; checked here (throws ScriptError). */
  scripts?: SimulatorScriptsFile;
  /**
   * A prefix cache like vLLM's automatic prefix caching (off when absent): an LRU of
   * `capacityTokens` tokens in blocks of `blockTokens` (default 16). The tokens of a prompt
   * found cached are reported in its usage and cost no prefill time.
   */
  prefixCache?: { capacityTokens: number; blockTokens?: number };
  /** Prefill cost: ms added to the first-token delay per prompt token not found cached (default 0). */
  prefillMsPerToken?: number;
  /** Requests run at once, like vLLM's `max_num_seqs`; later ones wait their turn (default: no limit). */
  maxNumSeqs?: number;
}

/** How the node scheduled the first token of its last planned answer. */
export interface PrefillRecord {
  promptTokens: number;
  cachedTokens: number;
  /** firstByteMs (+ a fault's extra delay) + prefillMsPerToken × uncached tokens; queueing not included. */
  firstTokenDelayMs: number;
}

/** Traffic seen by a node; only chat-completion requests are counted. */
export interface SimulatedNodeStats {
  requests: number;
  inFlight: number;
  maxInFlight: number;
  /** Requests in the running batch and waiting for it (see `maxNumSeqs`). */
  running: number;
  waiting: number;
  /** With a prefix cache: tokens looked up and found since the start, and tokens held now. */
  prefixCache?: { queriedTokens: number; hitTokens: number; cachedTokens: number; capacityTokens: number };
  lastRequest?: { headers: Record<string, string | string[] | undefined>; body: unknown; path: string };
  lastPrefill?: PrefillRecord;
}

/** A planned answer, rendered once the prefix cache has said how much of the prompt it held. */
interface PlannedAnswer {
  plan: CompletionPlan;
  /** The model and messages the prompt's tokens are counted from (the prefix cache's keys). */
  model: string;
  messages: readonly unknown[];
  stream: boolean;
  json: (plan: CompletionPlan) => unknown;
  events: (plan: CompletionPlan) => ChatStreamEvents;
}

const DEFAULT_HOST = '127.0.0.1';
/** Always listed by GET /v1/models, before the model names seen in requests. */
const DEFAULT_MODEL_ID = 'simulated';

function requireNonNegative(value: number | undefined, name: string): number {
  if (value === undefined) return 0;
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`SimulatedNode: ${name} must be a finite number >= 0`);
  return value;
}

function parseJsonOrText(text: string): { body: unknown; valid: boolean } {
  try {
    const body: unknown = JSON.parse(text);
    return { body, valid: true };
  } catch {
    return { body: text, valid: false };
  }
}

async function pause(milliseconds: number, signal: AbortSignal): Promise<void> {
  if (milliseconds <= 0) return;
  try {
    await sleep(milliseconds, undefined, { signal });
  } catch {
    // Aborted because the client left; the caller checks `signal.aborted`.
  }
}

/**
 * A deterministic OpenAI chat-completions server on node:http, with fault injection.
 * Routes: POST …/chat/completions, GET …/models, and the control endpoints
 * …/_simulator/faults (GET, POST), …/_simulator/stats (GET), …/_simulator/reset (POST).
 */
export class SimulatedNode {
  readonly #firstByteMs: number;
  readonly #tokensPerSecond: number;
  readonly #reasoningField: ReasoningField;
  readonly #contextLength: number | undefined;
  readonly #protocol: SimulatedProtocol;
  readonly #apiKey: string | undefined;
  readonly #scripts: SimulatorScripts;
  readonly #faults: FaultInjector;
  readonly #prefixCache: PrefixCache | undefined;
  readonly #prefillMsPerToken: number;
  readonly #slots: SequenceSlots;
  readonly #metrics: ReturnType<typeof simulatorMetrics>;
  /** Prompt tokens of the requests running now: the KV cache they hold. */
  #runningTokens = 0;
  #lastPrefill: PrefillRecord | undefined;
  readonly #server: Server;
  readonly #modelsSeen = new Set<string>();
  #baseUrl: string | undefined;
  #responseCounter = 0;
  #requests = 0;
  #inFlight = 0;
  #maxInFlight = 0;
  #lastRequest: SimulatedNodeStats['lastRequest'];
  #idleWaiters: Array<() => void> = [];

  constructor(options: SimulatedNodeOptions = {}) {
    this.#firstByteMs = requireNonNegative(options.firstByteMs, 'firstByteMs');
    this.#tokensPerSecond = requireNonNegative(options.tokensPerSecond, 'tokensPerSecond');
    this.#reasoningField = options.reasoningField ?? 'reasoning_content';
    this.#contextLength = options.contextLength;
    this.#protocol = options.protocol ?? 'openai';
    this.#apiKey = options.apiKey;
    this.#scripts = compileSimulatorScripts(options.scripts ?? {});
    this.#faults = new FaultInjector(options.seed ?? 1);
    if (options.faults !== undefined) this.setFaults(options.faults);
    const cache = options.prefixCache;
    this.#prefixCache =
      cache === undefined
        ? undefined
        : new PrefixCache(cache.capacityTokens, cache.blockTokens ?? DEFAULT_BLOCK_TOKENS);
    this.#prefillMsPerToken = requireNonNegative(options.prefillMsPerToken, 'prefillMsPerToken');
    this.#slots = new SequenceSlots(options.maxNumSeqs);
    this.#metrics = simulatorMetrics(
      {
        running: () => this.#slots.running,
        waiting: () => this.#slots.waiting,
        kvCacheUsage: () =>
          this.#prefixCache === undefined ? 0 : Math.min(1, this.#runningTokens / this.#prefixCache.capacityTokens),
        prefixCache: () => this.#prefixCache?.counters ?? { queriedTokens: 0, hitTokens: 0 },
      },
      DEFAULT_MODEL_ID,
    );
    this.#server = createServer((request, response) => this.#handle(request, response));
  }

  /** Starts listening (port 0 = ephemeral) and resolves the base URL, e.g. "http://127.0.0.1:43121/v1" (…/v1beta for Gemini). */
  listen(port = 0, host = DEFAULT_HOST): Promise<string> {
    return new Promise((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, host, () => {
        this.#server.off('error', reject);
        const address = this.#server.address();
        if (address === null || typeof address === 'string')
          return reject(new Error('SimulatedNode: not a TCP address'));
        const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address;
        this.#baseUrl = `http://${hostPart}:${address.port}${this.#protocol === 'gemini' ? '/v1beta' : '/v1'}`;
        resolve(this.#baseUrl);
      });
    });
  }

  /** The base URL resolved by listen(); throws before that. */
  get baseUrl(): string {
    if (this.#baseUrl === undefined) throw new Error('SimulatedNode: not listening yet');
    return this.#baseUrl;
  }

  /** Replaces the faults and restarts the failFirst/resetFirst counters and the ratio PRNG. */
  setFaults(faults: FaultSettings): void {
    this.#faults.set(parseFaultSettings(faults));
  }

  /** A snapshot of the traffic counters. */
  stats(): SimulatedNodeStats {
    const stats: SimulatedNodeStats = {
      requests: this.#requests,
      inFlight: this.#inFlight,
      maxInFlight: this.#maxInFlight,
      running: this.#slots.running,
      waiting: this.#slots.waiting,
    };
    if (this.#prefixCache !== undefined) {
      stats.prefixCache = {
        ...this.#prefixCache.counters,
        cachedTokens: this.#prefixCache.cachedTokens,
        capacityTokens: this.#prefixCache.capacityTokens,
      };
    }
    if (this.#lastRequest !== undefined) stats.lastRequest = { ...this.#lastRequest };
    if (this.#lastPrefill !== undefined) stats.lastPrefill = { ...this.#lastPrefill };
    return stats;
  }

  /** Zeroes `requests`, forgets `lastRequest` and `lastPrefill`; `maxInFlight` restarts from the current `inFlight`. */
  resetStats(): void {
    this.#requests = 0;
    this.#maxInFlight = this.#inFlight;
    this.#lastRequest = undefined;
    this.#lastPrefill = undefined;
  }

  /** Empties the prefix cache (its token counters, like Prometheus counters, keep counting). */
  clearPrefixCache(): void {
    this.#prefixCache?.clear();
  }

  /** Stops listening and destroys every open connection (in-flight requests included). */
  async close(): Promise<void> {
    if (!this.#server.listening) return;
    const closed = new Promise<void>((resolve, reject) => {
      this.#server.close((error) => (error === undefined ? resolve() : reject(error)));
    });
    this.#server.closeAllConnections();
    await closed;
    // Responses learn about their destroyed sockets a tick later; let them settle the counters.
    if (this.#inFlight > 0) await new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
  }

  #handle(request: IncomingMessage, response: ServerResponse): void {
    const requestNumber = ++this.#responseCounter;
    response.setHeader('x-request-id', `sim-${requestNumber}`);
    if (this.#protocol === 'anthropic') response.setHeader('request-id', `req_sim${requestNumber}`);
    this.#route(request, response, requestNumber).catch((error: unknown) => {
      if (error instanceof SimulatorError) {
        sendJson(response, error.status, errorBody(this.#protocol, error, `req_sim${requestNumber}`));
      } else if (response.headersSent) {
        response.destroy();
      } else {
        const message = 'The simulator failed to answer.';
        sendJson(
          response,
          500,
          errorBody(
            this.#protocol,
            new SimulatorError(500, message, { type: 'server_error', code: 'internal_error' }),
            `req_sim${requestNumber}`,
          ),
        );
      }
    });
  }

  async #route(request: IncomingMessage, response: ServerResponse, requestNumber: number): Promise<void> {
    const path = (request.url ?? '/').split('?', 1)[0] ?? '/';
    const method = request.method ?? 'GET';
    const allow = (allowed: string): void => {
      if (!allowed.split(',').includes(method)) {
        throw new SimulatorError(405, `Method ${method} is not allowed on ${path}.`, { code: 'method_not_allowed' });
      }
    };

    if (this.#protocol === 'openai' && path.endsWith('/responses')) {
      allow('POST');
      return this.#chatCompletion(request, response, path, requestNumber);
    }
    if (this.#protocol === 'openai' && path.endsWith('/chat/completions')) {
      allow('POST');
      return this.#chatCompletion(request, response, path, requestNumber);
    }
    if (this.#protocol === 'anthropic' && path.endsWith('/messages')) {
      allow('POST');
      return this.#chatCompletion(request, response, path, requestNumber);
    }
    if (this.#protocol === 'gemini' && /\/models\/[^/]+:(generateContent|streamGenerateContent)$/.test(path)) {
      allow('POST');
      return this.#chatCompletion(request, response, path, requestNumber);
    }
    if (path.endsWith('/_simulator/faults')) {
      allow('GET,POST');
      if (method === 'POST') this.#faults.set(parseFaultSettings(await this.#readJson(request)));
      return sendJson(response, 200, this.#faults.settings);
    }
    if (path.endsWith('/_simulator/stats')) {
      allow('GET');
      const stats = this.stats();
      if (stats.lastRequest !== undefined) stats.lastRequest.headers = redactHeaders(stats.lastRequest.headers);
      return sendJson(response, 200, stats);
    }
    if (path.endsWith('/_simulator/reset')) {
      allow('POST');
      this.setFaults({});
      this.resetStats();
      this.clearPrefixCache();
      return sendJson(response, 200, { reset: true });
    }
    if (path === '/metrics' || path.endsWith('/metrics')) {
      allow('GET');
      const text = await this.#metrics.metrics();
      response.writeHead(200, { 'content-type': this.#metrics.contentType, 'content-length': Buffer.byteLength(text) });
      response.end(text);
      return;
    }
    if (path.endsWith('/models')) {
      allow('GET');
      const ids = [DEFAULT_MODEL_ID, ...[...this.#modelsSeen].filter((id) => id !== DEFAULT_MODEL_ID)];
      const data = ids.map((id) => ({ id, object: 'model', created: 0, owned_by: 'switchyard-simulator' }));
      return sendJson(response, 200, { object: 'list', data });
    }
    throw new SimulatorError(404, `Unknown path ${path}.`, { code: 'not_found' });
  }

  async #readJson(request: IncomingMessage): Promise<unknown> {
    const parsed = parseJsonOrText(await readRequestBody(request));
    if (!parsed.valid) throw new SimulatorError(400, 'The request body is not valid JSON.', { code: 'invalid_json' });
    return parsed.body;
  }

  async #chatCompletion(
    request: IncomingMessage,
    response: ServerResponse,
    path: string,
    requestNumber: number,
  ): Promise<void> {
    // Decide the fault on arrival so failFirst/resetFirst follow arrival order.
    const decision = this.#faults.next();
    this.#requests++;
    this.#inFlight++;
    this.#maxInFlight = Math.max(this.#maxInFlight, this.#inFlight);
    const aborter = new AbortController();
    response.once('close', () => {
      this.#inFlight--;
      aborter.abort();
      if (this.#inFlight === 0) for (const resolve of this.#idleWaiters.splice(0)) resolve();
    });
    const signal = aborter.signal;

    let received: { body: unknown; valid: boolean };
    try {
      received = parseJsonOrText(await readRequestBody(request));
    } catch (error) {
      if (signal.aborted) return;
      throw error;
    }
    this.#lastRequest = { headers: { ...request.headers }, body: received.body, path };

    // The batch: a request beyond `maxNumSeqs` waits here for a running one to end.
    if (!(await this.#slots.acquire(signal))) return;
    let heldTokens = 0;
    const release = (): void => {
      this.#slots.release();
      this.#runningTokens -= heldTokens;
    };
    if (signal.aborted) return release();
    response.once('close', release);

    const baseDelayMs = this.#firstByteMs + decision.extraDelayMs;
    await pause(baseDelayMs, signal);
    if (signal.aborted) return;
    if (decision.action === 'reset') {
      request.socket.destroy();
      return;
    }
    if (decision.action === 'fail') return this.#answerFailure(response, decision);
    this.#checkApiKey(request);
    if (!received.valid) throw new SimulatorError(400, 'The request body is not valid JSON.', { code: 'invalid_json' });

    const answer = this.#answer(
      received.body,
      request.url ?? path,
      requestNumber,
      request.headers['anthropic-version'],
    );
    if (this.#contextLength !== undefined && answer.plan.promptTokens > this.#contextLength) {
      throw new SimulatorError(
        400,
        `This model's maximum context length is ${this.#contextLength} tokens. However, your messages resulted in ${answer.plan.promptTokens} tokens.`,
        { param: 'messages', code: 'context_length_exceeded' },
      );
    }
    heldTokens = answer.plan.promptTokens;
    this.#runningTokens += heldTokens;
    const cachedTokens = this.#lookUpPrefix(answer);
    const prefillMs = (answer.plan.promptTokens - cachedTokens) * this.#prefillMsPerToken;
    this.#lastPrefill = {
      promptTokens: answer.plan.promptTokens,
      cachedTokens,
      firstTokenDelayMs: baseDelayMs + prefillMs,
    };
    await pause(prefillMs, signal);
    if (signal.aborted) return;
    const plan = cachedTokens === 0 ? answer.plan : { ...answer.plan, cachedTokens };
    if (!answer.stream) return sendJson(response, 200, answer.json(plan));
    await writeChatStream(response, answer.events(plan), {
      tokensPerSecond: this.#tokensPerSecond,
      cutAfterChunks: decision.cutAfterChunks,
      signal,
    });
  }

  /** The prompt tokens found in the prefix cache (0 without one); the prompt is cached from now on. */
  #lookUpPrefix(answer: PlannedAnswer): number {
    const cache = this.#prefixCache;
    if (cache === undefined) return 0;
    const hashes = promptBlockHashes(answer.model, answer.messages, cache.blockTokens);
    return cache.lookupAndStore(hashes, answer.plan.promptTokens);
  }

  /** Parses the request in the node's protocol and plans the answer: a JSON body or stream events. */
  #answer(
    body: unknown,
    url: string,
    requestNumber: number,
    anthropicVersion: string | string[] | undefined,
  ): PlannedAnswer {
    if (this.#protocol === 'anthropic') {
      const parsed = parseAnthropicRequest(body, typeof anthropicVersion === 'string' ? anthropicVersion : undefined);
      this.#modelsSeen.add(parsed.model);
      const plan = planCompletion(
        { ...parsed, reasoningEffort: undefined },
        parsed.controls,
        scriptFor(this.#scripts, parsed.model),
      );
      const identity = { id: `msg_sim${requestNumber}`, model: parsed.model };
      return {
        plan,
        model: parsed.model,
        messages: parsed.messages,
        stream: parsed.stream,
        json: (final) => anthropicMessageBody(final, identity),
        events: (final) => anthropicStreamEvents(final, identity),
      };
    }
    if (this.#protocol === 'gemini') {
      const match = /\/models\/([^/?]+):(generateContent|streamGenerateContent)(\?|$)/.exec(url);
      const model = decodeURIComponent(match?.[1] ?? '');
      const parsed = parseGeminiRequest(model, body);
      this.#modelsSeen.add(model);
      const plan = planCompletion(
        { ...parsed, reasoningEffort: undefined },
        parsed.controls,
        scriptFor(this.#scripts, model),
      );
      const identity = { responseId: `sim-response-${requestNumber}`, model };
      return {
        plan,
        model,
        messages: parsed.messages,
        // Gemini streams only on the streaming method, with alt=sse (js-genai's URL).
        stream: match?.[2] === 'streamGenerateContent',
        json: (final) => geminiResponseBody(final, identity, parsed.includeThoughts),
        events: (final) => geminiStreamEvents(final, identity, parsed.includeThoughts),
      };
    }
    // The Responses API (an OpenAI node configured `apis: [chat, responses]`): the same plan, in its shapes.
    const responses = url.split('?', 1)[0]?.endsWith('/responses') === true;
    const chatBody = responses ? chatBodyOfResponsesRequest(body) : body;
    const chatRequest = parseChatRequest(chatBody);
    this.#modelsSeen.add(chatRequest.model);
    const controls = openaiControls(chatBody, chatRequest.messages);
    const plan = planCompletion(chatRequest, controls, scriptFor(this.#scripts, chatRequest.model));
    const identity = {
      id: `chatcmpl-sim-${requestNumber}`,
      created: Math.floor(Date.now() / 1000),
      model: chatRequest.model,
      reasoningField: responses ? ('reasoning_content' as const) : this.#reasoningField,
    };
    const common = { plan, model: chatRequest.model, messages: chatRequest.messages, stream: chatRequest.stream };
    if (responses) {
      const request = body as Record<string, unknown>;
      return {
        ...common,
        json: (final) => responsesBody(request, requestNumber, completionBody(final, identity), completionUsage(final)),
        events: (final) =>
          responsesStreamEvents(
            request,
            requestNumber,
            chatStreamEvents(final, identity, false),
            completionUsage(final),
          ),
      };
    }
    return {
      ...common,
      json: (final) => completionBody(final, identity),
      events: (final) => chatStreamEvents(final, identity, chatRequest.includeUsage),
    };
  }

  /** With an `apiKey`, a request without it is refused the way the protocol's API refuses it. */
  #checkApiKey(request: IncomingMessage): void {
    if (this.#apiKey === undefined) return;
    if (this.#protocol === 'anthropic') {
      // The API takes `x-api-key`, or the key as a bearer token (what @anthropic-ai/sdk 1.x sends).
      if (request.headers['x-api-key'] !== this.#apiKey && request.headers.authorization !== `Bearer ${this.#apiKey}`) {
        throw new SimulatorError(401, 'invalid x-api-key');
      }
      if (request.headers['anthropic-version'] === undefined)
        throw new SimulatorError(400, 'anthropic-version: header is required');
    } else if (this.#protocol === 'gemini') {
      if (request.headers['x-goog-api-key'] !== this.#apiKey)
        throw new SimulatorError(400, 'API key not valid. Please pass a valid API key.');
    } else if (request.headers.authorization !== `Bearer ${this.#apiKey}`) {
      throw new SimulatorError(401, 'Incorrect API key provided.', { code: 'invalid_api_key' });
    }
  }

  #answerFailure(response: ServerResponse, decision: Extract<FaultDecision, { action: 'fail' }>): void {
    if (decision.body === DEFAULT_FAILURE_BODY && this.#protocol !== 'openai') {
      const error = new SimulatorError(decision.status, 'simulated failure');
      return sendJson(response, decision.status, errorBody(this.#protocol, error, 'req_simfault'), decision.headers);
    }
    if (typeof decision.body !== 'string') return sendJson(response, decision.status, decision.body, decision.headers);
    // A string body goes out verbatim, e.g. to imitate a proxy's HTML error page.
    response.writeHead(decision.status, {
      ...decision.headers,
      'content-type': 'text/plain; charset=utf-8',
      'content-length': Buffer.byteLength(decision.body),
    });
    response.end(decision.body);
  }
}
