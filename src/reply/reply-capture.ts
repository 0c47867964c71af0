import type { RequestContext } from '../context/request-context.js';

/**
 * Adds reply text to the request record's bodies when the record keeps them
 * (`record.bodies.kept`): up to the capture's limit (the writer cuts to the exact byte).
 * Nothing for every other request.
 */
export function captureReply(context: RequestContext, text: string | Buffer): void {
  const bodies = context.record.bodies;
  if (bodies === undefined || !bodies.kept || bodies.replyBytes >= bodies.limit) return;
  bodies.reply += typeof text === 'string' ? text : text.toString('utf8');
  bodies.replyBytes += Buffer.byteLength(text);
}
