import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChatStreamEvents } from './chat-stream-events.js';

/** How a stream is written: pacing, an optional mid-stream cut, and the client-gone signal. */
export interface ChatStreamWriteOptions {
  /** Token chunks are spaced by 1000 / tokensPerSecond ms; 0 writes everything at once. */
  tokensPerSecond: number;
  /** Destroy the socket after this many `data:` events (only if the stream has more). */
  cutAfterChunks: number | undefined;
  /** Aborted when the client disconnects; writing stops at once. */
  signal: AbortSignal;
}

/** SSE comment sent when a cut happens before any event, so the status line still goes out. */
const CUT_COMMENT = ': simulated cut\n\n';

function waitForDrain(response: ServerResponse, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      response.off('drain', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    response.once('drain', done);
    signal.addEventListener('abort', done, { once: true });
  });
}

function waitForFlush(response: ServerResponse, text: string, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      signal.removeEventListener('abort', done);
      resolve();
    };
    signal.addEventListener('abort', done, { once: true });
    response.write(text, done);
  });
}

async function pause(milliseconds: number, signal: AbortSignal): Promise<void> {
  try {
    await sleep(milliseconds, undefined, { signal });
  } catch {
    // Aborted: the caller checks `signal.aborted`.
  }
}

/**
 * Writes a 200 `text/event-stream` response from pre-encoded events. Consecutive events
 * that are due together go out in one write; a false `write` waits for 'drain'.
 */
export async function writeChatStream(
  response: ServerResponse,
  stream: ChatStreamEvents,
  options: ChatStreamWriteOptions,
): Promise<void> {
  const { events, tokenCount } = stream;
  const { signal, cutAfterChunks } = options;
  const cutting = cutAfterChunks !== undefined && cutAfterChunks < events.length;
  const limit = cutting ? cutAfterChunks : events.length;
  const interval = options.tokensPerSecond > 0 ? 1000 / options.tokensPerSecond : 0;

  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
  });

  let pending = '';
  const start = performance.now();
  for (let index = 0; index < limit; index++) {
    // Event 1 is the first token and goes out with the role chunk; token k waits until start + (k - 1) × interval.
    if (interval > 0 && index >= 2 && index <= tokenCount) {
      const wait = start + (index - 1) * interval - performance.now();
      if (wait > 0) {
        if (pending !== '' && !response.write(pending)) await waitForDrain(response, signal);
        pending = '';
        await pause(wait, signal);
        if (signal.aborted) return;
      }
    }
    pending += events[index];
  }
  if (signal.aborted) return;

  if (!cutting) {
    response.end(pending);
    return;
  }
  // Make sure the last events reached the kernel before the connection is torn down.
  await waitForFlush(response, pending === '' ? CUT_COMMENT : pending, signal);
  response.destroy();
}
