import { performance } from 'node:perf_hooks';

/** One `data:` payload as the client received it, with its arrival time (performance.now()). */
export interface SseEvent {
  readonly data: string;
  readonly at: number;
}

/** An SSE body as read: the raw text, its `data:` payloads, and why the body ended early, if it did. */
export interface SseRead {
  readonly raw: string;
  /** The `data:` payloads in order ("[DONE]" included). */
  readonly data: string[];
  /** The same payloads, each timed when its event was complete. */
  readonly events: SseEvent[];
  /** The error the body failed with (a cut connection); undefined when it ended normally. */
  readonly failure: unknown;
}

/** A chat chunk event as an OpenAI-protocol node writes it: one choice with `delta`, compact JSON. */
export function chatChunkEvent(delta: Record<string, unknown>, finishReason: string | null = null): string {
  const chunk = {
    id: 'chatcmpl-node',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'node-model',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/** The usage chunk event a node sends last when asked for usage: no choices, the counts. */
export function chatUsageEvent(usage: Record<string, unknown>): string {
  return `data: ${JSON.stringify({ id: 'chatcmpl-node', object: 'chat.completion.chunk', created: 1, model: 'node-model', choices: [], usage })}\n\n`;
}

/** Payloads of the `data:` lines of an SSE body, in order ("[DONE]" included). */
export function sseData(text: string): string[] {
  return text
    .split(/\r?\n/)
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trimStart());
}

/** Reads a body chunk by chunk, timing each complete event; a failing body ends the read. */
class SseReader {
  raw = '';
  readonly events: SseEvent[] = [];
  failure: unknown = undefined;
  done = false;
  private pending = '';
  private readonly decoder = new TextDecoder();
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;

  constructor(response: Response) {
    if (response.body === null) throw new Error(`no body to read (status ${response.status})`);
    this.reader = response.body.getReader();
  }

  /** Reads one chunk; false once the body ended or failed. */
  async step(): Promise<boolean> {
    if (this.done) return false;
    try {
      const { done, value } = await this.reader.read();
      if (done) {
        this.done = true;
        return false;
      }
      const at = performance.now();
      const text = this.decoder.decode(value, { stream: true });
      this.raw += text;
      this.pending += text;
      const complete = this.pending.lastIndexOf('\n\n');
      if (complete !== -1) {
        for (const data of sseData(this.pending.slice(0, complete + 2))) this.events.push({ data, at });
        this.pending = this.pending.slice(complete + 2);
      }
      return true;
    } catch (error) {
      this.failure = error;
      this.done = true;
      return false;
    }
  }

  result(): SseRead {
    const events = [...this.events, ...sseData(this.pending).map((data) => ({ data, at: performance.now() }))];
    return { raw: this.raw, data: events.map((event) => event.data), events, failure: this.failure };
  }
}

/** Reads a whole SSE body (the one SSE reader of the suites). */
export async function readSse(response: Response): Promise<SseRead> {
  const reader = new SseReader(response);
  while (await reader.step());
  return reader.result();
}

/** Reads an SSE body until `count` non-empty data events arrived; returns them and a promise of the whole read. */
export async function readSseUntil(
  response: Response,
  count: number,
): Promise<{ first: string[]; rest: Promise<SseRead> }> {
  const reader = new SseReader(response);
  while (reader.events.filter((event) => event.data !== '').length < count && (await reader.step()));
  const first = reader.events.map((event) => event.data);
  const rest = (async () => {
    while (await reader.step());
    return reader.result();
  })();
  return { first, rest };
}
