import type { RequestRun } from '../context/request-context.js';
import type { OutputCap } from './estimate-request.js';

/** A node's reply that reported more output than the request reserved. */
export interface OutputOverCap {
  readonly node: string;
  /** Output tokens reserved: the per-choice cap times the choices. */
  readonly capTokens: number;
  readonly completionTokens: number;
}

/**
 * The overshoot of a finished request whose node reported more completion tokens than the
 * cap it was sent (all choices together), else undefined. Such a request is charged what the
 * node reported, past its reservation (PRODUCT.md decision 20): only a node that ignores its
 * cap can do that, so it is worth a warning. The gateway's own estimates are not the node's word.
 */
export function outputOverCap(run: RequestRun, cap: OutputCap, choices: number): OutputOverCap | undefined {
  const booked = run.booked;
  if (booked === undefined || booked.estimated) return undefined;
  const capTokens = cap.tokens * choices;
  if (!(booked.usage.completion_tokens > capTokens)) return undefined;
  const node = run.attempts[run.attempts.length - 1]?.node;
  if (node === undefined) return undefined;
  return { node, capTokens, completionTokens: booked.usage.completion_tokens };
}
