import type { IncomingMessage } from 'node:http';
import { ClientGoneError, gatewayError, isGatewayError } from '../errors/gateway-error.js';

/** Reads the whole request body as UTF-8, refusing more than `limit` bytes (413, PRODUCT.md decision 11). */
export async function readBody(request: IncomingMessage, limit: number): Promise<string> {
  const declared = Number(request.headers['content-length']);
  if (declared > limit) throw gatewayError('payload_too_large', { params: { limit } });
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of request as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) throw gatewayError('payload_too_large', { params: { limit } });
      chunks.push(chunk);
    }
  } catch (error) {
    // The client went away while sending its body: nothing to answer.
    if (request.destroyed && !isGatewayError(error)) throw new ClientGoneError();
    throw error;
  }
  return chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks, size).toString('utf8');
}
