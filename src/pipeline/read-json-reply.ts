import type { NodeConfig } from '../config/gateway-config.js';
import type { UpstreamResponse } from '../upstream/upstream-call.js';
import { headerValue } from './header-value.js';
import { replyTooLarge } from './request-own-failure.js';

/**
 * A node's non-streaming reply body, refused past the node's `replies.max_json_bytes`: a
 * declared length over it is refused unread, a body that grows past it is torn down at once,
 * so no more than the cap is ever held. The request asked for that much: `reply_too_large`,
 * the request's failure, not the node's.
 */
export async function readJsonReply(response: UpstreamResponse, node: NodeConfig): Promise<string> {
  const limit = node.replies.maxJsonBytes;
  const declared = Number(headerValue(response.headers['content-length']));
  const text = declared > limit ? undefined : await response.body.text(limit);
  if (text === undefined) {
    response.body.destroy();
    throw replyTooLarge(node);
  }
  return text;
}
