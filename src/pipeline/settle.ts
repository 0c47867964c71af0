import type { RequestCharge, RequestOutcome } from '../billing/billing.js';
import { outputOverCap } from '../billing/output-over-cap.js';
import type { GatewayServices } from '../gateway-services.js';
import type { Logger } from '../observability/logger.js';
import type { Admission } from './admit.js';
import { chargeTokens } from './rate-limit.js';
import type { RequestContext, RequestRun } from '../context/request-context.js';

/**
 * The request is over, however it ended: its charge settles on the run's values (the
 * reservation is released, the usage priced and booked), its tokens count against the
 * tokens-per-minute limits, and a node that reported more output than it was allowed is
 * named (PRODUCT.md decision 20). Called exactly once, from the pipeline's one `finally`.
 * Returns the USD booked, when a row was.
 */
export function settle(
  services: GatewayServices,
  logger: Logger,
  context: RequestContext,
  admission: Admission,
  charge: RequestCharge,
  outcome: RequestOutcome,
  run: RequestRun,
  choices: number,
): number | undefined {
  const costUsd = charge.settle(context, outcome, run);
  chargeTokens(context.snapshot.limiter, admission.subject, run.booked?.usage);
  const over = outputOverCap(run, charge.outputCap, choices);
  if (over !== undefined) {
    services.metrics.nodeOutputOverCap(over.node);
    logger.warn(
      {
        request_id: context.requestId,
        node: over.node,
        model: run.model,
        output_cap: over.capTokens,
        completion_tokens: over.completionTokens,
      },
      'node reported more output tokens than the cap it was sent; charged what it reported',
    );
  }
  return costUsd;
}
