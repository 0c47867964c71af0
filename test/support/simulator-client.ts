import type { TestContext } from 'node:test';
import { SimulatedNode, type SimulatedNodeOptions } from '../../src/simulator/simulated-node.js';
import { readSse } from './sse.js';

/** A plain HTTP answer: status, headers and the raw body text. */
export interface TestResponse {
  status: number;
  headers: Headers;
  text: string;
}

/** Test helper: starts a SimulatedNode on port 0 (closed after the test) and talks to it over real HTTP. */
export class SimulatorClient {
  readonly node: SimulatedNode;
  readonly baseUrl: string;

  private constructor(node: SimulatedNode, baseUrl: string) {
    this.node = node;
    this.baseUrl = baseUrl;
  }

  /** Starts a node with `options` and registers its close() with `t.after`. */
  static async start(t: TestContext, options: SimulatedNodeOptions = {}): Promise<SimulatorClient> {
    const node = new SimulatedNode(options);
    const baseUrl = await node.listen(0);
    t.after(() => node.close());
    return new SimulatorClient(node, baseUrl);
  }

  /** URL of a path under the base URL, e.g. url('/chat/completions'). */
  url(path: string): string {
    return `${this.baseUrl}${path}`;
  }

  /** POSTs `body` (an object is JSON-encoded, a string is sent as is) and reads the whole answer. */
  async post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<TestResponse> {
    const response = await fetch(this.url(path), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: response.status, headers: response.headers, text: await response.text() };
  }

  /** GETs a path and reads the whole answer. */
  async get(path: string): Promise<TestResponse> {
    const response = await fetch(this.url(path));
    return { status: response.status, headers: response.headers, text: await response.text() };
  }

  /** POSTs a chat completion and parses the JSON answer. */
  async chat(body: Record<string, unknown>): Promise<{ status: number; json: Record<string, unknown> }> {
    const response = await this.post('/chat/completions', body);
    return { status: response.status, json: JSON.parse(response.text) as Record<string, unknown> };
  }

  /** POSTs a streaming chat completion; returns the data payloads read before the body ended or failed. */
  async chatStream(body: Record<string, unknown>): Promise<{ status: number; data: string[]; failure: unknown }> {
    const response = await fetch(this.url('/chat/completions'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, stream: true }),
    });
    const { data, failure } = await readSse(response);
    return { status: response.status, data, failure };
  }
}
