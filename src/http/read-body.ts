import type { IncomingMessage } from 'node:http';
import { gatewayError } from '../errors/gateway-error.js';
import type { BodyBudget, BodyHolder } from './body-budget.js';

/** No idle limit: for callers that read small trusted bodies. */
const NO_IDLE_LIMIT = 0;

/**
 * Reads the whole request body as UTF-8, refusing more than `limit` bytes (413, PRODUCT.md
 * decision 11) and a client that goes silent for `idleTimeoutMs` between two chunks (408
 * request_timeout: a slow-loris body must not hold a connection forever). With a `budget`,
 * each chunk's bytes are taken from it for `holder` as they arrive, before they are kept
 * (never the declared length, which costs a client nothing to claim: 429/503 when over),
 * and given back however the read ends. On a refusal the rest of the body is left unread
 * (the server drains a bounded amount of it).
 */
export function readBody(
  request: IncomingMessage,
  limit: number,
  idleTimeoutMs = NO_IDLE_LIMIT,
  budget?: BodyBudget,
  holder?: BodyHolder,
): Promise<string> {
  const declared = Number(request.headers['content-length']);
  if (declared > limit) return Promise.reject(gatewayError('payload_too_large', { params: { limit } }));
  if (request.readableEnded) return Promise.resolve('');
  let held = 0;
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
      budget?.release(holder, held);
      held = 0;
    }
    function refuse(error: unknown): void {
      stop();
      request.pause();
      reject(error);
    }
    function onData(chunk: Buffer): void {
      size += chunk.length;
      if (size > limit) return refuse(gatewayError('payload_too_large', { params: { limit } }));
      if (budget !== undefined) {
        try {
          budget.take(holder, chunk.length);
        } catch (error) {
          return refuse(error);
        }
        held += chunk.length;
      }
      chunks.push(chunk);
      timer?.refresh();
    }
    function onEnd(): void {
      stop();
      const [only] = chunks;
      resolve(
        chunks.length === 1 && only !== undefined
          ? only.toString('utf8')
          : Buffer.concat(chunks, size).toString('utf8'),
      );
    }
    function onIdle(): void {
      refuse(gatewayError('request_timeout', { params: { what: 'body', timeout_ms: idleTimeoutMs } }));
    }
    // The client went away while sending its body: nothing to answer.
    function onGone(): void {
      stop();
      reject(gatewayError('client_gone'));
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
