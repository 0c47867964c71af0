import type { IncomingMessage, ServerResponse } from 'node:http';

/** How much of an unread request body is read and discarded after an early answer (`http.*`). */
export interface DrainLimits {
  readonly maxDrainBytes: number;
  readonly drainTimeoutMs: number;
}

/**
 * Whether the rest of `request`'s body can be drained within `limits`: something is left to
 * read, draining is on, and the declared length (when there is one) fits the byte bound.
 */
export function canDrain(request: IncomingMessage, limits: DrainLimits): boolean {
  if (request.complete || limits.maxDrainBytes <= 0 || limits.drainTimeoutMs <= 0) return false;
  const declared = Number(request.headers['content-length']);
  return !(declared > limits.maxDrainBytes);
}

/**
 * Ends an early answer (401, 413, 429… sent before the request body was read in full) so
 * that a client that writes its whole body before reading (Python's urllib, undici's
 * fetch) reads it instead of a connection reset (issue 16 item 6). Closing a socket with
 * unread bytes makes the kernel send a reset, which drops the answer the client has not
 * read yet. So `body` is written at once and the response is ended only once the rest of
 * the request body has been read and discarded: then the connection closes cleanly (or
 * stays usable when keep-alive). Past `maxDrainBytes` discarded bytes or `drainTimeoutMs`,
 * the response is ended and the connection destroyed. The head must already be written.
 */
export function endAfterDrain(
  request: IncomingMessage,
  response: ServerResponse,
  body: string,
  limits: DrainLimits,
): void {
  let drained = 0;
  const timer = setTimeout(cut, limits.drainTimeoutMs);
  response.write(body);
  // write() leaves the socket corked until the next tick; a parse error in the body's next
  // bytes would destroy it first and the answer with it. end() flushes at once; so do we.
  request.socket.uncork();

  function stop(): void {
    clearTimeout(timer);
    request.off('data', onData);
    request.off('end', onEnd);
    request.off('close', onEnd);
  }
  function onData(chunk: Buffer): void {
    drained += chunk.length;
    if (drained > limits.maxDrainBytes) cut();
  }
  function onEnd(): void {
    stop();
    if (!response.destroyed) response.end();
  }
  // Past a bound: the answer is complete on the wire; the connection goes once it is flushed.
  function cut(): void {
    stop();
    request.pause();
    const socket = request.socket;
    if (response.destroyed) return;
    response.once('finish', () => socket.destroy());
    response.end();
  }
  request.on('data', onData);
  request.on('end', onEnd);
  request.on('close', onEnd);
  request.resume();
}
