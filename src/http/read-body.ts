import type { IncomingMessage } from 'node:http';
import { ClientGoneError, gatewayError } from '../errors/gateway-error.js';

/** No idle limit: for callers that read small trusted bodies. */
const NO_IDLE_LIMIT = 0;

/**
 * Reads the whole request body as UTF-8, refusing more than `limit` bytes (413, PRODUCT.md
 * decision 11) and a client that goes silent for `idleTimeoutMs` between two chunks (408
 * request_timeout: a slow-loris body must not hold a connection forever). On either
 * refusal the rest of the body is left unread; the error response closes the connection.
 */
export function readBody(request: IncomingMessage, limit: number, idleTimeoutMs = NO_IDLE_LIMIT): Promise<string> {
  const declared = Number(request.headers['content-length']);
  if (declared > limit) return Promise.reject(gatewayError('payload_too_large', { params: { limit } }));
  if (request.readableEnded) return Promise.resolve('');
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = idleTimeoutMs > 0 ? setTimeout(onIdle, idleTimeoutMs) : undefined;

    function stop(): void {
      if (timer !== undefined) clearTimeout(timer);
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onGone);
      request.off('close', onClose);
    }
    function onData(chunk: Buffer): void {
      size += chunk.length;
      if (size > limit) {
        stop();
        request.pause();
        reject(gatewayError('payload_too_large', { params: { limit } }));
        return;
      }
      chunks.push(chunk);
      timer?.refresh();
    }
    function onEnd(): void {
      stop();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks, size).toString('utf8'));
    }
    function onIdle(): void {
      stop();
      request.pause();
      reject(gatewayError('request_timeout', { params: { what: 'body', timeout_ms: idleTimeoutMs } }));
    }
    // The client went away while sending its body: nothing to answer.
    function onGone(): void {
      stop();
      reject(new ClientGoneError());
    }
    function onClose(): void {
      if (!request.complete) onGone();
    }
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onGone);
    request.on('close', onClose);
  });
}
