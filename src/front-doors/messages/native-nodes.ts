import type { ModelConfig } from '../../config/gateway-config.js';
import type { ModelNodesView } from '../../pipeline/front-door.js';
import { isStrictVersion, refusedContent } from '../../providers/anthropic/api-version.js';

/** What the Messages door decides from the model's nodes before the pipeline chooses one. */
export interface NativeNodes {
  /**
   * Every node of the model serves Messages natively: the internal request is then only
   * read for the reservation and the policy, and what only Anthropic can do is not
   * refused. A model with any translated node gets the 400s (the chosen node is not known yet).
   */
  readonly only: boolean;
  /** Some node of the model serves Messages natively: the model's priced-feature policy applies to the request it gets. */
  readonly some: boolean;
}

/**
 * The model's Messages nodes, read through the pipeline's node view. A request with content
 * Anthropic API version 2026-10-21 refuses (an assistant document, a user text block's
 * citations) is refused here, 400 naming it, when a node of the model would get it natively
 * on that version: whichever node is chosen, so that a failover between versions never
 * sends it to one that refuses it. Translated nodes never get it.
 */
export function nativeNodes(view: ModelNodesView, model: ModelConfig | undefined, messages: unknown): NativeNodes {
  const nodes = model === undefined ? [] : view.nodesOf(model.id);
  let native = 0;
  let strict = false;
  for (const { node } of nodes) {
    if (!node.nativeApis.has('messages')) continue;
    native++;
    if (isStrictVersion(node)) strict = true;
  }
  if (strict) {
    const refused = refusedContent(messages);
    if (refused !== undefined) throw refused;
  }
  return { only: nodes.length > 0 && native === nodes.length, some: native > 0 };
}
