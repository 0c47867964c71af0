import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { GatewayConfig } from '../../src/config/gateway-config.js';
import { parseConfigText } from '../../src/config/load-config.js';
import { startGateway, type RunningGateway } from '../../src/main.js';
import { SimulatedNode, type SimulatedNodeOptions } from '../../src/simulator/simulated-node.js';
import { waitFor } from './wait-for.js';

/** One node attempt as the request's log line reports it. */
export interface LoggedAttempt {
  node: string;
  status?: number;
  error?: string;
  ms: number;
}

/** A log line, with the fields of the request line the tests read typed. */
export interface RequestLogLine {
  request_id?: string;
  status?: number;
  error_code?: string;
  attempts?: LoggedAttempt[];
  usage?: Record<string, unknown>;
  usage_estimated?: boolean;
  total_ms?: number;
  msg?: string;
  [field: string]: unknown;
}

/**
 * A gateway started in-process on a free port, with its log lines captured: the one way the
 * suites start a gateway (gateway-process.ts runs the CLI for what needs a real process).
 */
export interface TestGateway {
  /** The OpenAI base URL, e.g. http://127.0.0.1:41234/v1. */
  readonly baseUrl: string;
  /** Scheme, host and port: where /admin/v1 and /metrics live. */
  readonly origin: string;
  readonly port: number;
  /** The running gateway itself (reload, services). */
  readonly running: RunningGateway;
  /** Every pino line written so far, parsed. */
  logs(): RequestLogLine[];
  /** The request's log line, once written (it is written when the response closes). */
  logLine(requestId: string | null, timeoutMs?: number): Promise<RequestLogLine>;
  /** Parses YAML the way this gateway was configured (for reload). */
  parse(yaml: string): GatewayConfig;
  close(): Promise<void>;
}

/** Tests keep their state in memory unless their YAML names a store. */
export function withMemoryStore(yaml: string): string {
  return /^store:/m.test(yaml) ? yaml : `store: memory\n${yaml}`;
}

/** Starts the real gateway from YAML text (env for `${VAR}` interpolation). */
export async function startTestGateway(yaml: string, env: NodeJS.ProcessEnv = {}): Promise<TestGateway> {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      lines.push(chunk.toString());
      callback();
    },
  });
  const logger = pino({ level: 'info' }, destination);
  const parse = (text: string): GatewayConfig => parseConfigText(withMemoryStore(text), 'test', env);
  const gateway = await startGateway(parse(yaml), { port: 0, logger });
  const logs = (): RequestLogLine[] =>
    lines
      .join('')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as RequestLogLine);
  const requestLine = (requestId: string) =>
    logs().find((line) => line.request_id === requestId && line.msg === 'request');
  return {
    baseUrl: gateway.baseUrl,
    origin: new URL(gateway.baseUrl).origin,
    port: gateway.port,
    running: gateway,
    logs,
    async logLine(requestId, timeoutMs = 2000) {
      assert.ok(requestId, 'the response has an x-request-id');
      await waitFor(() => requestLine(requestId) !== undefined, timeoutMs, { what: `the log line of ${requestId}` });
      return requestLine(requestId) as RequestLogLine;
    },
    parse,
    close: () => gateway.close(),
  };
}

/** Starts a SimulatedNode on 127.0.0.1, port 0; the caller closes it. */
export async function startSimulator(options: SimulatedNodeOptions = {}): Promise<SimulatedNode> {
  const node = new SimulatedNode(options);
  await node.listen(0);
  return node;
}
