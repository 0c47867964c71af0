import { isEmpty } from '../streaming/stream-events.js';
import type { NodeConfig } from '../config/gateway-config.js';
import type { StreamMapper } from '../streaming/stream-mapper.js';
import { withoutReasoningStream } from '../providers/without-reasoning-text.js';
import { UpstreamEventReader, type MappedBatch } from '../streaming/upstream-event-reader.js';
import { invalidReply } from '../upstream/node-failure.js';
import type { UpstreamResponse } from '../upstream/upstream-call.js';
import { headerValue } from './header-value.js';

/** A node's stream whose first events are mapped: nothing has reached the client yet. */
export interface CommittedStream {
  readonly reader: UpstreamEventReader;
  readonly first: MappedBatch;
}

/**
 * Reads a node's stream up to its first mapped events, the point where the request commits
 * to the node (spec 8.4): a reply that is not a stream, or a stream that ends without any
 * event, is the node's invalid reply and another node may still be tried.
 */
export async function commitStream(
  response: UpstreamResponse,
  node: NodeConfig,
  /** Makes the stream's mapper; called once the reply is known to be a stream. */
  mapper: () => StreamMapper,
  excludeReasoning: boolean,
): Promise<CommittedStream> {
  const contentType = headerValue(response.headers['content-type']);
  if (!contentType?.includes('text/event-stream')) {
    response.body.dump().catch(() => undefined);
    throw invalidReply(node.id, `asked for a stream, got ${contentType ?? 'no content type'}`);
  }
  const nodeMapper = mapper();
  const reader = new UpstreamEventReader(
    response.body,
    excludeReasoning ? withoutReasoningStream(nodeMapper) : nodeMapper,
    node.replies.maxEventBytes,
  );
  let committed = false;
  try {
    const first = await reader.read();
    if (first.done && isEmpty(first)) throw invalidReply(node.id, 'the stream ended without any event');
    committed = true;
    return { reader, first };
  } finally {
    if (!committed) reader.release();
  }
}
