import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import protobuf from 'protobufjs';
import { waitFor } from './wait-for.js';

// The OTLP trace protocol's own .proto files (opentelemetry-proto v1.9.0, Apache-2.0, in
// otlp-proto/), decoded with protobufjs: the receiver reads what the official exporter sent
// without any of the gateway's code, or the exporter's, in between.
const PROTO_DIR = join(import.meta.dirname, 'otlp-proto');

function loadRequestType(): protobuf.Type {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => join(PROTO_DIR, target);
  root.loadSync('opentelemetry/proto/collector/trace/v1/trace_service.proto');
  return root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
}

/** OTLP span kinds (trace.proto). */
export const SPAN_KIND = { INTERNAL: 1, SERVER: 2, CLIENT: 3 } as const;
/** OTLP status codes (trace.proto). */
export const STATUS_CODE = { UNSET: 0, OK: 1, ERROR: 2 } as const;

export type AttributeValue = string | number | boolean | AttributeValue[] | undefined;

/** One span as received, ids in lower-case hex. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** '' for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  readonly kind: number;
  readonly attributes: Readonly<Record<string, AttributeValue>>;
  readonly status: { readonly code: number; readonly message: string };
  readonly events: ReadonlyArray<{ readonly name: string }>;
  readonly startNs: bigint;
  readonly endNs: bigint;
  /** The resource's attributes (service.name…). */
  readonly resource: Readonly<Record<string, AttributeValue>>;
}

/** How the receiver answers: 200 at once, never (holds the request open), or not at all (closed port: see `close`). */
export type ReceiverMode = 'answer' | 'hang';

export interface OtlpReceiver {
  /** The base address, as `telemetry.otlp.endpoint` or OTEL_EXPORTER_OTLP_ENDPOINT takes it. */
  readonly endpoint: string;
  spans(): ReceivedSpan[];
  /** Export requests received (answered or held). */
  readonly requests: number;
  /** The request headers of the last export. */
  readonly lastHeaders: IncomingMessage['headers'] | undefined;
  /** Waits until spans matching `probe` are in, and returns them. */
  waitForSpans(probe: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

/** An OTLP/HTTP (protobuf) trace receiver on 127.0.0.1, free port. */
export async function startOtlpReceiver(mode: ReceiverMode = 'answer'): Promise<OtlpReceiver> {
  const requestType = loadRequestType();
  const received: ReceivedSpan[] = [];
  const sockets = new Set<Socket>();
  let requests = 0;
  let lastHeaders: IncomingMessage['headers'] | undefined;
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests++;
      lastHeaders = request.headers;
      if (mode === 'hang') return;
      if (request.url !== '/v1/traces' || request.headers['content-type'] !== 'application/x-protobuf') {
        response.writeHead(415).end();
        return;
      }
      received.push(...decode(requestType, Buffer.concat(chunks)));
      // An empty ExportTraceServiceResponse: full success.
      response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans: () => [...received],
    get requests() {
      return requests;
    },
    get lastHeaders() {
      return lastHeaders;
    },
    async waitForSpans(probe, timeoutMs = 5000) {
      await waitFor(() => probe(received), timeoutMs, { what: 'spans at the OTLP receiver' });
      return [...received];
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

interface DecodedRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: Array<{ spans?: DecodedSpan[] }>;
  }>;
}

interface KeyValue {
  key: string;
  value?: AnyValue;
}

interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
}

interface DecodedSpan {
  traceId: Uint8Array;
  spanId: Uint8Array;
  parentSpanId?: Uint8Array;
  name: string;
  kind?: number;
  attributes?: KeyValue[];
  status?: { code?: number; message?: string };
  events?: Array<{ name: string }>;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
}

function decode(requestType: protobuf.Type, body: Buffer): ReceivedSpan[] {
  const message = requestType.toObject(requestType.decode(body), { longs: String, defaults: false }) as DecodedRequest;
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of message.resourceSpans ?? []) {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        spans.push({
          traceId: hex(span.traceId),
          spanId: hex(span.spanId),
          parentSpanId: hex(span.parentSpanId),
          name: span.name,
          kind: span.kind ?? 0,
          attributes: attributesOf(span.attributes),
          status: { code: span.status?.code ?? 0, message: span.status?.message ?? '' },
          events: (span.events ?? []).map((event) => ({ name: event.name })),
          startNs: BigInt(span.startTimeUnixNano),
          endNs: BigInt(span.endTimeUnixNano),
          resource,
        });
      }
    }
  }
  return spans;
}

function attributesOf(list: KeyValue[] | undefined): Record<string, AttributeValue> {
  const attributes: Record<string, AttributeValue> = {};
  for (const { key, value } of list ?? []) attributes[key] = valueOf(value);
  return attributes;
}

function valueOf(value: AnyValue | undefined): AttributeValue {
  if (value === undefined) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(valueOf);
  return undefined;
}

function hex(bytes: Uint8Array | undefined): string {
  return bytes === undefined ? '' : Buffer.from(bytes).toString('hex');
}
