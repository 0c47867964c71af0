import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { BoundHistogram, type HistogramSeries } from './bound-histogram.js';
import { CountedAtScrape, type CounterSeries } from './counted-at-scrape.js';
import type { ReadinessChecks } from '../lifecycle/readiness-checks.js';
import type { RequestRecord } from '../context/request-context.js';
import { isErrorCode, wireCodeOf } from '../errors/codes.js';
import type { NodeCondition, NodeState } from '../routing/node-state.js';
import type { NodeLoadReport } from '../routing/parse-node-load.js';

/** What the collect-time gauges read; nothing here is touched per request. */
export interface MetricsSources {
  /** The router's live nodes. */
  nodes(): readonly NodeState[];
  /** Live gateway instances sharing the store, this one included. */
  instances(): number;
  readonly readiness: ReadinessChecks;
  /** Requests the HTTP server is handling now. */
  requestsInFlight(): number;
  /** Whether a client-sent model id is a configured model (others are labelled `OTHER_MODEL`). */
  isKnownModel(model: string): boolean;
  /** Usage rows booked and not yet committed to the store. */
  usageRowsWaiting(): number;
  /** Stored responses kept (expired ones not yet swept included): how many, and their JSON bytes. */
  storedResponses(): Promise<{ readonly count: number; readonly bytes: number }>;
}

/** Label used for a model id that is not configured: client input never becomes a label value. */
export const OTHER_MODEL = '_other';
/** Label used when the request never named a model (bad body, auth failure). */
export const NO_MODEL = '';
/** Label used for a first byte no node sent (an answer the gateway made itself). */
export const NO_NODE = '';
/** Status and code labels of a request whose client went away before its answer ended. */
export const CLIENT_ABORTED_STATUS = '499';
export const CLIENT_ABORTED_CODE = 'client_aborted';
/** Where an operator's call came in: the admin API or the console. */
export type OperatorArea = 'admin' | 'console';

/** Longest a scrape waits for a gauge's store read; a hung store then leaves the gauge at its last value. */
export const STORE_READ_TIMEOUT_MS = 1_000;

type StoredSize = Awaited<ReturnType<MetricsSources['storedResponses']>>;

/** `read`, or undefined when it takes longer than `timeoutMs`. */
function withinTime<T>(read: Promise<T>, timeoutMs: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, timeoutMs, undefined);
  });
  return Promise.race([read, timeout]).finally(() => clearTimeout(timer));
}

const NODE_CONDITIONS: readonly NodeCondition[] = ['healthy', 'ejected', 'probing', 'drained'];
const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
const OVERHEAD_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];
/** Bounds the label caches if a long-lived process sees many distinct label sets. */
const MAX_CACHED_CHILDREN = 10_000;

interface ModelChildren {
  readonly duration: HistogramSeries;
  readonly overhead: HistogramSeries;
  readonly promptTokens: CounterSeries;
  readonly completionTokens: CounterSeries;
}

interface NodeChildren {
  readonly ok: CounterSeries;
  readonly failed: CounterSeries;
  readonly aborted: CounterSeries;
  readonly failovers: CounterSeries;
}

/**
 * The gateway's Prometheus metrics, in a registry of its own (several gateways may share a
 * process in tests). Per request, `observeRequest` runs once, when the request's log line
 * is written: a few map look-ups for pre-bound label children and some increments.
 * Node state, in-flight counts and dependency health are read only when scraped.
 */
export class GatewayMetrics {
  readonly registry = new Registry();
  // The per-request families' series are made once per label set and kept in the maps below,
  // so a request looks them up by a string key. The counters' count in numbers handed to
  // prom-client at scrape (CountedAtScrape), ~0.01 against ~0.48 µs per increment for a
  // prom-client child (`node` in-process, this VM); the histograms' are BoundHistogram
  // series, for the same reason (~0.6 µs per observation through a prom-client child).
  private readonly requests: CountedAtScrape<'front_door' | 'model' | 'status' | 'code'>;
  private readonly rejections: CountedAtScrape<'code'>;
  private readonly duration: BoundHistogram<'model' | 'stream'>;
  private readonly firstByte: BoundHistogram<'model' | 'node' | 'stream'>;
  private readonly overhead: BoundHistogram<'stream'>;
  private readonly tokens: CountedAtScrape<'model' | 'kind'>;
  private readonly cost: CountedAtScrape<'model'>;
  private readonly attempts: CountedAtScrape<'node' | 'outcome'>;
  private readonly failovers: CountedAtScrape<'node'>;
  private readonly operatorRequests: CountedAtScrape<'area' | 'status'>;
  private readonly affinity: CountedAtScrape<'model' | 'outcome'>;
  private readonly dropped: Counter;
  private readonly overCap: Counter<'node'>;
  private readonly spansDropped: Counter<'reason'>;
  private readonly modelChildren = new Map<string, ModelChildren>();
  private readonly firstByteChildren = new Map<string, HistogramSeries>();
  private readonly nodeChildren = new Map<string, NodeChildren>();
  // The last label set of each kind looked up, and its series: requests mostly repeat one,
  // and a hit compares a few strings instead of building and hashing a key (the requests
  // key's Map look-up alone was 0.5-0.9 % of busy time, `bash bench/profile.sh json|sse`).
  private lastRequest:
    { frontDoor: string; model: string; status: number | undefined; code: string; series: CounterSeries } | undefined;
  private lastModel: { model: string; stream: boolean; children: ModelChildren } | undefined;
  private lastAffinity: { model: string; outcome: string; series: CounterSeries } | undefined;
  private lastFirstByte: { model: string; node: string; stream: boolean; series: HistogramSeries } | undefined;

  /**
   * `processMetrics: false` (metrics turned off) leaves out prom-client's default process
   * metrics: their event-loop-delay monitor wakes the event loop every 10 ms for nothing
   * when no one scrapes. `storeReadTimeoutMs`: how long a scrape waits for the store (tests shorten it).
   */
  constructor(
    private readonly sources: MetricsSources,
    {
      processMetrics = true,
      storeReadTimeoutMs = STORE_READ_TIMEOUT_MS,
    }: { readonly processMetrics?: boolean; readonly storeReadTimeoutMs?: number } = {},
  ) {
    const registers = [this.registry];
    if (processMetrics) collectDefaultMetrics({ register: this.registry });
    this.requests = new CountedAtScrape({
      name: 'switchyard_requests_total',
      help: 'Answers clients got, rejections before a node included, by front door (chat, messages, responses, models, unknown), model, HTTP status and error code as in the body ("" on success; 499 client_aborted when the client left). Admin, console, health and /metrics calls are not counted here.',
      labelNames: ['front_door', 'model', 'status', 'code'],
      registers,
    });
    this.rejections = new CountedAtScrape({
      name: 'switchyard_rejections_total',
      help: 'Requests the gateway refused before any node was tried (validation, auth, rate limits, money…), by error code as in the body.',
      labelNames: ['code'],
      registers,
    });
    this.duration = new BoundHistogram({
      name: 'switchyard_request_duration_seconds',
      help: 'Total time from request arrival to the end of the response (whole stream included).',
      labelNames: ['model', 'stream'],
      buckets: SECONDS_BUCKETS,
      registers,
    });
    this.firstByte = new BoundHistogram({
      name: 'switchyard_time_to_first_byte_seconds',
      help: 'Time from request arrival to the first byte of a successful reply (first event of a stream), by model, the node that served it ("" for answers the gateway made itself) and stream.',
      labelNames: ['model', 'node', 'stream'],
      buckets: SECONDS_BUCKETS,
      registers,
    });
    this.overhead = new BoundHistogram({
      name: 'switchyard_gateway_overhead_seconds',
      help: "The gateway's own time: time to the client's first byte minus the time spent in node attempts.",
      labelNames: ['stream'],
      buckets: OVERHEAD_BUCKETS,
      registers,
    });
    this.tokens = new CountedAtScrape({
      name: 'switchyard_tokens_total',
      help: 'Tokens of replies, by model and kind (prompt, completion), as the node reported them or as estimated.',
      labelNames: ['model', 'kind'],
      registers,
    });
    this.cost = new CountedAtScrape({
      name: 'switchyard_cost_usd_total',
      help: 'Cost booked, in USD, by model.',
      labelNames: ['model'],
      registers,
    });
    this.attempts = new CountedAtScrape({
      name: 'switchyard_node_attempts_total',
      help: 'Node attempts, by node and outcome (ok, failed, aborted).',
      labelNames: ['node', 'outcome'],
      registers,
    });
    this.failovers = new CountedAtScrape({
      name: 'switchyard_failovers_total',
      help: 'Failed node attempts that were followed by an attempt on another node, by the node that failed.',
      labelNames: ['node'],
      registers,
    });
    this.operatorRequests = new CountedAtScrape({
      name: 'switchyard_admin_requests_total',
      help: 'Calls of the operator: the admin API (area="admin") and the console (area="console"), by HTTP status.',
      labelNames: ['area', 'status'],
      registers,
    });
    this.affinity = new CountedAtScrape({
      name: 'switchyard_affinity_total',
      help: 'Requests routed with an affinity key (a session or a conversation opening), by model served and outcome: hit (the preferred node served it), spill (another node did); none: no key or affinity off.',
      labelNames: ['model', 'outcome'],
      registers,
    });
    this.dropped = new Counter({
      name: 'switchyard_connections_dropped_total',
      help: 'Client connections refused at accept because http.max_connections were open.',
      registers,
    });
    this.overCap = new Counter({
      name: 'switchyard_node_output_over_cap_total',
      help: 'Replies whose node reported more completion tokens than the output cap it was sent (charged as reported), by node.',
      labelNames: ['node'],
      registers,
    });
    this.spansDropped = new Counter({
      name: 'switchyard_trace_spans_dropped_total',
      help: 'Trace spans not delivered to the OTLP collector, by reason: queue_full (the export queue was full) or export_failed (the collector refused, failed or timed out).',
      labelNames: ['reason'],
      registers,
    });
    new Gauge({
      name: 'switchyard_node_state',
      help: 'Node condition: 1 for the state the node is in (healthy, ejected, probing, drained), 0 for the others.',
      labelNames: ['node', 'state'],
      registers,
      collect() {
        this.reset();
        const now = Date.now();
        for (const node of sources.nodes()) {
          const condition = node.condition(now);
          for (const state of NODE_CONDITIONS) this.set({ node: node.id, state }, state === condition ? 1 : 0);
        }
      },
    });
    new Gauge({
      name: 'switchyard_node_in_flight',
      help: 'Requests in flight on each node.',
      labelNames: ['node'],
      registers,
      collect() {
        this.reset();
        for (const node of sources.nodes()) this.set({ node: node.id }, node.load);
      },
    });
    const reported = (name: string, help: string, read: (load: NodeLoadReport) => number | undefined) =>
      new Gauge({
        name,
        help,
        labelNames: ['node'],
        registers,
        collect() {
          this.reset();
          const now = Date.now();
          for (const node of sources.nodes()) {
            const load = node.reportedLoad(now);
            const value = load && read(load);
            if (value !== undefined) this.set({ node: node.id }, value);
          }
        },
      });
    reported(
      'switchyard_node_reported_running',
      "Requests the node reports running, from its own metrics (load_metrics); absent while they can't be read.",
      (load) => load.running,
    );
    reported(
      'switchyard_node_reported_waiting',
      "Requests the node reports queued, from its own metrics (load_metrics); absent while they can't be read.",
      (load) => load.waiting,
    );
    reported(
      'switchyard_node_reported_kv_cache_usage',
      "KV-cache usage (0..1) the node reports, from its own metrics (load_metrics); absent while it can't be read.",
      (load) => load.kvCacheUsage,
    );
    new Gauge({
      name: 'switchyard_node_max_concurrency',
      help: 'Configured max_concurrency of each node.',
      labelNames: ['node'],
      registers,
      collect() {
        this.reset();
        for (const node of sources.nodes()) this.set({ node: node.id }, node.node.maxConcurrency);
      },
    });
    new Gauge({
      name: 'switchyard_usage_rows_waiting',
      help: 'Usage rows booked (journaled) and not yet committed to the store; grows while the store is unreachable.',
      registers,
      collect() {
        this.set(sources.usageRowsWaiting());
      },
    });
    // One store read per scrape serves both gauges (collected together or one after the other).
    // A store that hangs must not hang GET /metrics: past the time-out the gauges keep their
    // last values, and a read still under way is waited on again rather than repeated.
    let storeRead: Promise<StoredSize | undefined> | undefined;
    let scrapeRead: Promise<StoredSize | undefined> | undefined;
    const readStoredSize = () =>
      (scrapeRead ??= withinTime(
        (storeRead ??= sources
          .storedResponses()
          .catch(() => undefined)
          .finally(() => {
            storeRead = undefined;
          })),
        storeReadTimeoutMs,
      ).finally(() => {
        scrapeRead = undefined;
      }));
    new Gauge({
      name: 'switchyard_stored_responses',
      help: 'Stored responses of the Responses API kept in the store (expired ones not yet swept included).',
      registers,
      async collect() {
        const size = await readStoredSize();
        if (size !== undefined) this.set(size.count);
      },
    });
    new Gauge({
      name: 'switchyard_stored_response_bytes',
      help: 'Bytes of JSON (Response objects and input items) of the stored responses kept in the store.',
      registers,
      async collect() {
        const size = await readStoredSize();
        if (size !== undefined) this.set(size.bytes);
      },
    });
    new Gauge({
      name: 'switchyard_node_effective_max_concurrency',
      help: "This instance's share of each node's max_concurrency (all of it unless several instances share the store).",
      labelNames: ['node'],
      registers,
      collect() {
        this.reset();
        for (const node of sources.nodes()) this.set({ node: node.id }, node.effectiveMaxConcurrency);
      },
    });
    new Gauge({
      name: 'switchyard_instances',
      help: 'Live gateway instances sharing the store, this one included (1 unless the store is PostgreSQL).',
      registers,
      collect() {
        this.set(sources.instances());
      },
    });
    new Gauge({
      name: 'switchyard_requests_in_flight',
      help: 'Requests the gateway is handling now.',
      registers,
      collect() {
        this.set(sources.requestsInFlight());
      },
    });
    new Gauge({
      name: 'switchyard_dependency_up',
      help: 'Readiness checks (the same as GET /readyz): 1 passing, 0 failing.',
      labelNames: ['name'],
      registers,
      async collect() {
        const results = await sources.readiness.run();
        this.reset();
        for (const result of results) this.set({ name: result.name }, result.ok ? 1 : 0);
      },
    });
  }

  /** Prometheus text exposition format. */
  get contentType(): string {
    return this.registry.contentType;
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }

  /**
   * Adds a booked cost to `switchyard_cost_usd_total{model}`. For the money code: call it
   * once per settled charge, with the model served and the cost in USD.
   * Negative or non-finite amounts are ignored (a refund is not a negative cost).
   */
  recordCost(model: string, usd: number): void {
    if (!(usd > 0) || !Number.isFinite(usd)) return;
    const label = this.modelLabel(model);
    (this.cost.get(label) ?? this.cost.series(label, () => ({ model: label }))).inc(usd);
  }

  /** A node reported more output than the cap it was sent (configured node ids only: a bounded label). */
  nodeOutputOverCap(node: string): void {
    this.overCap.inc({ node });
  }

  /** A connection was refused at accept (http.max_connections). */
  /** Trace spans the exporter never delivered (telemetry/): the queue was full, or the collector failed them. */
  traceSpansDropped(reason: 'queue_full' | 'export_failed', count: number): void {
    this.spansDropped.inc({ reason }, count);
  }

  connectionDropped(): void {
    this.dropped.inc();
  }

  /** Books one operator call (admin API or console): apart from the clients' requests. */
  observeOperatorRequest(area: OperatorArea, record: RequestRecord): void {
    const status = record.clientAborted ? CLIENT_ABORTED_STATUS : String(record.status ?? 0);
    const key = `${area}\u0000${status}`;
    (this.operatorRequests.get(key) ?? this.operatorRequests.series(key, () => ({ area, status }))).inc();
  }

  /**
   * Books one finished client request: called once per request, with its log line.
   * `frontDoor` is the label of the path's door (`unknown` for a path no door owns).
   */
  observeRequest(record: RequestRecord, totalMs: number, frontDoor: string = record.frontDoor): void {
    // The model served: an alias (any id a pattern matches) would make labels unbounded.
    const served = record.modelServed ?? record.model;
    const model = served === undefined ? NO_MODEL : this.modelLabel(served);
    const code = record.clientAborted ? CLIENT_ABORTED_CODE : (record.errorCode ?? '');
    this.requestChild(frontDoor, model, record.clientAborted ? undefined : record.status, code).inc();
    const attempts = record.attempts;
    if (code !== '' && attempts.length === 0) this.rejectionChild(code).inc();

    const children = this.modelChildrenFor(model, record.stream);
    children.duration.observe(totalMs / 1000);
    if (record.firstByteMs !== undefined) {
      const served = attempts.length === 0 ? undefined : attempts[attempts.length - 1];
      const node = served === undefined || served.error !== undefined ? NO_NODE : served.node;
      this.firstByteChildFor(model, node, record.stream).observe(record.firstByteMs / 1000);
      let nodeMs = 0;
      for (const attempt of attempts) nodeMs += attempt.ms;
      if (attempts.length > 0) children.overhead.observe(Math.max(0, record.firstByteMs - nodeMs) / 1000);
    }
    if (record.usage !== undefined) {
      children.promptTokens.inc(record.usage.prompt_tokens);
      children.completionTokens.inc(record.usage.completion_tokens);
    }
    if (record.costUsd !== undefined && served !== undefined) this.recordCost(served, record.costUsd);
    if (record.affinity !== undefined) this.affinityChild(record.modelServed ?? model, record.affinity).inc();
    for (const [index, attempt] of attempts.entries()) {
      const node = this.nodeChildrenFor(attempt.node);
      if (attempt.error === undefined) node.ok.inc();
      else if (attempt.error === 'client aborted' || attempt.error === 'deadline' || attempt.error === 'shutdown')
        node.aborted.inc();
      else {
        node.failed.inc();
        if (index < attempts.length - 1) node.failovers.inc();
      }
    }
  }

  private modelLabel(model: string): string {
    return this.sources.isKnownModel(model) ? model : OTHER_MODEL;
  }

  private affinityChild(model: string, outcome: string): CounterSeries {
    const label = model === NO_MODEL ? model : this.modelLabel(model);
    const last = this.lastAffinity;
    if (last !== undefined && last.model === label && last.outcome === outcome) return last.series;
    const key = `${label}\u0000${outcome}`;
    const series = this.affinity.get(key) ?? this.affinity.series(key, () => ({ model: label, outcome }));
    this.lastAffinity = { model: label, outcome, series };
    return series;
  }

  private rejectionChild(code: string): CounterSeries {
    return this.rejections.get(code) ?? this.rejections.series(code, () => ({ code: wireCodeLabel(code) }));
  }

  /** `status` undefined: the client left (499). Series keys hold the gateway's code; labels the body's. */
  private requestChild(frontDoor: string, model: string, status: number | undefined, code: string): CounterSeries {
    const last = this.lastRequest;
    if (
      last !== undefined &&
      last.frontDoor === frontDoor &&
      last.model === model &&
      last.status === status &&
      last.code === code
    )
      return last.series;
    const key = `${frontDoor}\u0000${model}\u0000${status}\u0000${code}`;
    const series =
      this.requests.get(key) ??
      this.requests.series(key, () => ({
        front_door: frontDoor,
        model,
        status: status === undefined ? CLIENT_ABORTED_STATUS : String(status),
        code: wireCodeLabel(code),
      }));
    this.lastRequest = { frontDoor, model, status, code, series };
    return series;
  }

  private firstByteChildFor(model: string, node: string, stream: boolean): HistogramSeries {
    const last = this.lastFirstByte;
    if (last !== undefined && last.model === model && last.node === node && last.stream === stream) return last.series;
    const key = `${stream ? 's' : 'j'}\u0000${model}\u0000${node}`;
    let child = this.firstByteChildren.get(key);
    if (child === undefined) {
      child = this.firstByte.series(key, () => ({ model, node, stream: stream ? 'true' : 'false' }));
      cacheChild(this.firstByteChildren, key, child);
    }
    this.lastFirstByte = { model, node, stream, series: child };
    return child;
  }

  private modelChildrenFor(model: string, stream: boolean): ModelChildren {
    const last = this.lastModel;
    if (last !== undefined && last.model === model && last.stream === stream) return last.children;
    const key = stream ? `s\u0000${model}` : `j\u0000${model}`;
    let children = this.modelChildren.get(key);
    if (children === undefined) {
      const streamLabel = stream ? 'true' : 'false';
      children = {
        duration: this.duration.series(key, () => ({ model, stream: streamLabel })),
        overhead: this.overhead.series(streamLabel, () => ({ stream: streamLabel })),
        promptTokens: this.tokens.series(`${model}\u0000prompt`, () => ({ model, kind: 'prompt' })),
        completionTokens: this.tokens.series(`${model}\u0000completion`, () => ({ model, kind: 'completion' })),
      };
      cacheChild(this.modelChildren, key, children);
    }
    this.lastModel = { model, stream, children };
    return children;
  }

  private nodeChildrenFor(node: string): NodeChildren {
    let children = this.nodeChildren.get(node);
    if (children === undefined) {
      children = {
        ok: this.attempts.series(`${node}\u0000ok`, () => ({ node, outcome: 'ok' })),
        failed: this.attempts.series(`${node}\u0000failed`, () => ({ node, outcome: 'failed' })),
        aborted: this.attempts.series(`${node}\u0000aborted`, () => ({ node, outcome: 'aborted' })),
        failovers: this.failovers.series(node, () => ({ node })),
      };
      cacheChild(this.nodeChildren, node, children);
    }
    return children;
  }
}

/**
 * The code as the client's error body has it (`no_route` is `model_unavailable` on the wire,
 * a missing key `authentication_required`…), so the metric and the answer say the same.
 */
function wireCodeLabel(code: string): string {
  return isErrorCode(code) ? wireCodeOf(code) : code;
}

function cacheChild<T>(cache: Map<string, T>, key: string, child: T): void {
  if (cache.size >= MAX_CACHED_CHILDREN) cache.clear();
  cache.set(key, child);
}
