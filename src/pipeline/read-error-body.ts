import type { NodeConfig } from '../config/gateway-config.js';
import { bodyWithoutNodeSecret } from '../providers/redact-node-secret.js';
import type { UpstreamResponse } from '../upstream/upstream-call.js';

/** Bodies of node errors are kept up to this size (passed through, logged). */
const MAX_ERROR_BODY_BYTES = 1024 * 1024;

/** A node's error reply body, up to 1 MiB (the rest torn down), without the node's secret. */
export async function readErrorBody(response: UpstreamResponse, node: NodeConfig): Promise<Buffer> {
  return bodyWithoutNodeSecret(await readCapped(response.body, MAX_ERROR_BODY_BYTES), node);
}

async function readCapped(body: AsyncIterable<Buffer> & { destroy(): unknown }, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= limit) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, limit);
}
