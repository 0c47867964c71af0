import type { Dispatcher } from 'undici';
import type { UpstreamCall } from '../providers/types.js';

/**
 * From this many characters (so at least as many UTF-8 bytes; `length` costs nothing to
 * read), a streamed call's body is sent as a one-shot body. A held stream costs some
 * 130 KiB of RSS anyway (bench/streams-10k.mjs, 20 KB prompts): a body under 16 KiB kept
 * beside it is a small share, and ordinary chat turns (a few KB) keep undici's fastest path,
 * a string written at once. The one-shot form costs a little per request whatever its size
 * (a header copy, a microtask before undici dispatches it, a promise per chunk, a drain wait),
 * so it is kept for the bodies where it pays: coding agents' 50-150 KB prompts, which would
 * otherwise weigh as much as the stream itself for minutes.
 */
export const ONE_SHOT_BODY_MIN_CHARACTERS = 16 * 1024;

/**
 * What undici's `dispatch` is given for `call` at `path`: a POST with the call's headers and
 * body, in one object. undici keeps the body it is given for the whole request, which for a
 * stream is the whole reply: the `Request`'s `body`, and the `abort` closure that its HTTP/1
 * writer hands our handler (upstream-call.ts) captures it too. A string body becomes a
 * Buffer there, held for the stream's minutes. A large streamed body is therefore given as a
 * one-shot iterable that lets go of its Buffer when undici takes it, with its
 * `content-length` (undici then writes it as one piece, not chunked); once written, nothing
 * keeps it. JSON calls and small bodies keep the string. Each attempt builds its call afresh
 * (pipeline/attempt.ts), so a body is never sent twice.
 */
export function dispatchOptions(path: string, call: UpstreamCall): Dispatcher.DispatchOptions {
  if (!call.stream || call.body.length < ONE_SHOT_BODY_MIN_CHARACTERS) {
    return { method: 'POST', path, headers: call.headers, body: call.body };
  }
  const bytes = Buffer.from(call.body, 'utf8');
  return {
    method: 'POST',
    path,
    headers: { ...call.headers, 'content-length': String(bytes.length) },
    // undici's Dispatcher.md lists Iterable and AsyncIterable bodies (client-h1's
    // writeIterable); its dispatcher.d.ts (7.x) leaves them out of the type.
    body: new OneShotBody(bytes) as unknown as Dispatcher.DispatchOptions['body'],
  };
}

const DONE: IteratorResult<Buffer> = { done: true, value: undefined };

/**
 * An async iterable of one Buffer that forgets it as it hands it out: what undici keeps of
 * it afterwards (the `Request`'s `body`, the writer's `abort` closure) holds an empty
 * shell. Its own iterator, not an async generator: undici keeps the generator object, and
 * a finished `async function* (bytes) { yield bytes }` still held its Buffer (node 20, the
 * release test in node-client.test.ts).
 */
class OneShotBody implements AsyncIterableIterator<Buffer> {
  #bytes: Buffer | undefined;

  constructor(bytes: Buffer) {
    this.#bytes = bytes;
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<Buffer> {
    return this;
  }

  next(): Promise<IteratorResult<Buffer>> {
    const bytes = this.#bytes;
    this.#bytes = undefined;
    return Promise.resolve(bytes === undefined ? DONE : { done: false, value: bytes });
  }
}
