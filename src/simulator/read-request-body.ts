import type { IncomingMessage } from 'node:http';
import { SimulatorError } from './simulator-error.js';

/** Largest request body the simulator accepts (the gateway's own default limit is 4 MiB). */
export const MAX_REQUEST_BODY_BYTES = 16 * 1024 * 1024;

/**
 * Reads the whole request body as UTF-8. Past `limit` bytes it keeps draining (so the
 * socket survives to carry the answer) and then throws a 413 SimulatorError.
 */
export async function readRequestBody(request: IncomingMessage, limit = MAX_REQUEST_BODY_BYTES): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= limit) chunks.push(chunk);
  }
  if (size > limit) {
    throw new SimulatorError(413, `Request body exceeds ${limit} bytes.`, { code: 'payload_too_large' });
  }
  return Buffer.concat(chunks, size).toString('utf8');
}
