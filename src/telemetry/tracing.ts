import type { IncomingMessage } from 'node:http';
import { defaultTextMapGetter, ROOT_CONTEXT, SpanKind, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { ParentBasedSampler, TraceIdRatioBasedSampler, TracerProvider } from '@opentelemetry/sdk-trace';
import { ATTR_HTTP_REQUEST_METHOD, ATTR_SERVICE_NAME, ATTR_URL_PATH } from '@opentelemetry/semantic-conventions';
import type { NodeConfig, TelemetrySettings } from '../config/gateway-config.js';
import type { RequestContext } from '../context/request-context.js';
import { BoundedSpanExport, type SpanDropReason } from './bounded-span-export.js';
import { CHAT_OPERATION, GEN_AI_OPERATION_NAME, SWITCHYARD_REQUEST_ID } from './gen-ai-attributes.js';
import { RequestTrace, type TraceSettings } from './request-trace.js';
import { tracingWanted } from './tracing-wanted.js';

/** The paths whose requests are traced: the three front doors' chat requests (count and stored-response routes are not). */
const TRACED_PATHS = new Set(['/v1/chat/completions', '/v1/messages', '/v1/responses']);

/** How tracing reports what it could not deliver, and where its own failures are told. */
export interface TracingHooks {
  readonly onDrop: (reason: SpanDropReason, count: number) => void;
}

/**
 * OpenTelemetry traces over OTLP/HTTP with protobuf, from the official SDK: a tracer of
 * its own (nothing registered globally), the W3C trace-context propagator, a batch
 * processor behind a bounded, counted queue (bounded-span-export.ts), and the OTLP exporter
 * with a short time-out. Built once at start; `startRequest` is the only per-request entry.
 */
export class Tracing {
  private readonly propagator = new W3CTraceContextPropagator();
  private readonly tracer: Tracer;
  private readonly settings: TraceSettings;
  private readonly servers = new WeakMap<NodeConfig, { readonly address: string; readonly port: number }>();

  constructor(
    private readonly provider: TracerProvider,
    private readonly telemetry: TelemetrySettings,
  ) {
    this.tracer = provider.getTracer('switchyard');
    this.settings = {
      tracer: this.tracer,
      propagator: this.propagator,
      captureContent: telemetry.captureContent,
      maxContentChars: telemetry.maxContentChars,
      serverOf: (node) => this.serverOf(node),
    };
  }

  /**
   * The SERVER span of a request to a front door, child of the client's `traceparent` when
   * it sent one; undefined for other paths. Sets the record's trace id.
   */
  startRequest(request: IncomingMessage, path: string, context: RequestContext): RequestTrace | undefined {
    if (!TRACED_PATHS.has(path)) return undefined;
    const parent = this.propagator.extract(ROOT_CONTEXT, request.headers, defaultTextMapGetter);
    const span = this.tracer.startSpan(
      CHAT_OPERATION,
      {
        kind: SpanKind.SERVER,
        attributes: {
          [GEN_AI_OPERATION_NAME]: CHAT_OPERATION,
          [ATTR_HTTP_REQUEST_METHOD]: request.method ?? 'POST',
          [ATTR_URL_PATH]: path,
          [SWITCHYARD_REQUEST_ID]: context.requestId,
        },
      },
      parent,
    );
    const requestTrace = new RequestTrace(this.settings, span);
    context.record.traceId = requestTrace.traceId;
    return requestTrace;
  }

  /** Exports what is queued and stops; bounded by twice the export time-out. */
  async shutdown(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.provider.shutdown(),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.telemetry.timeoutMs * 2);
      }),
    ]);
    clearTimeout(timer);
  }

  private serverOf(node: NodeConfig): { readonly address: string; readonly port: number } {
    let server = this.servers.get(node);
    if (server === undefined) {
      const url = new URL(node.baseUrl);
      const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
      server = { address: url.hostname.replace(/^\[|\]$/g, ''), port };
      this.servers.set(node, server);
    }
    return server;
  }
}

/**
 * Tracing when an OTLP endpoint is configured, in the file (`telemetry.otlp.endpoint`) or
 * by the standard `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `OTEL_EXPORTER_OTLP_ENDPOINT`
 * variables (the exporter reads those, and `OTEL_EXPORTER_OTLP_*HEADERS`, itself);
 * undefined otherwise, and when `OTEL_SDK_DISABLED` is true: then no tracer exists at all.
 */
export function startTracing(
  telemetry: TelemetrySettings,
  hooks: TracingHooks,
  env: NodeJS.ProcessEnv = process.env,
): Tracing | undefined {
  if (!tracingWanted(telemetry, env)) return undefined;
  const exporter = new OTLPTraceExporter({
    ...(telemetry.endpoint === undefined ? {} : { url: telemetry.endpoint }),
    headers: { ...telemetry.headers },
    timeoutMillis: telemetry.timeoutMs,
  });
  const provider = new TracerProvider({
    // A client's traceparent decides whether its trace is recorded; traces the gateway starts are sampled at the ratio.
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(telemetry.sampleRatio) }),
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: telemetry.serviceName }),
    spanProcessors: [
      new BoundedSpanExport({
        exporter,
        maxQueueSpans: telemetry.maxQueueSpans,
        batchSpans: telemetry.batchSpans,
        batchIntervalMs: telemetry.batchIntervalMs,
        exportTimeoutMs: telemetry.timeoutMs + 1_000,
        onDrop: hooks.onDrop,
      }),
    ],
  });
  return new Tracing(provider, telemetry);
}
