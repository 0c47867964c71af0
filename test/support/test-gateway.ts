import { createServer } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { parseConfigText } from '../../src/config/load-config.js';
import { startGateway, type RunningGateway } from '../../src/main.js';
import { SimulatedNode, type SimulatedNodeOptions } from '../../src/simulator/simulated-node.js';

/** A gateway started in-process on a free port, with its log lines captured. */
export interface TestGateway {
  /** The OpenAI base URL, e.g. http://127.0.0.1:41234/v1. */
  readonly baseUrl: string;
  readonly port: number;
  /** The running gateway itself (reload, services). */
  readonly running: RunningGateway;
  /** Every pino line written so far, parsed. */
  logs(): Array<Record<string, unknown>>;
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
  const gateway = await startGateway(parseConfigText(withMemoryStore(yaml), 'test', env), { port: 0, logger });
  return {
    baseUrl: gateway.baseUrl,
    port: gateway.port,
    running: gateway,
    logs: () =>
      lines
        .join('')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    close: () => gateway.close(),
  };
}

/** Starts a SimulatedNode on 127.0.0.1, port 0; the caller closes it. */
export async function startSimulator(options: SimulatedNodeOptions = {}): Promise<SimulatedNode> {
  const node = new SimulatedNode(options);
  await node.listen(0);
  return node;
}

/** Resolves once `predicate` holds, polling every 10 ms; rejects after `timeoutMs`. */
export async function waitFor(predicate: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A port nobody listens on (bound, then released): a node there is unreachable. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address !== 'object') throw new Error('no port was bound');
  return address.port;
}
