import type { IncomingMessage } from 'node:http';
import type { RequestContext } from '../context/request-context.js';
import { whenReady } from '../context/when-ready.js';
import type { GatewayServices } from '../gateway-services.js';
import { admit, type Admission, type Credentials } from '../pipeline/admit.js';
import type { BodyBudget } from './body-budget.js';
import { readBody } from './read-body.js';

/**
 * The start every front door's route shares: admission from the headers (401, 429) before
 * a byte of the body is read, then the body within the key's, the account's, the client
 * address's and the gateway's body budgets (413, 408, 429, 503), kept for the log line when `log.bodies` is on.
 */
export function admitAndRead(
  services: GatewayServices,
  bodies: BodyBudget,
  request: IncomingMessage,
  context: RequestContext,
  credentials: Credentials,
  countingTokens = false,
): Promise<{ readonly admission: Admission; readonly body: string }> {
  try {
    const admitted = admit(
      services,
      credentials,
      context,
      countingTokens ? countingCostUpFront(request, context.snapshot.config.http.bodyLimitBytes) : undefined,
    );
    return whenReady(admitted, (admission) => readAdmitted(services, bodies, request, context, credentials, admission));
  } catch (refusal) {
    return Promise.reject(refusal);
  }
}

/** The body of an admitted request, and the bodies its request record keeps. */
async function readAdmitted(
  services: GatewayServices,
  bodies: BodyBudget,
  request: IncomingMessage,
  context: RequestContext,
  credentials: Credentials,
  admission: Admission,
): Promise<{ readonly admission: Admission; readonly body: string }> {
  const { config } = context.snapshot;
  const body = await readBody(request, config.http.bodyLimitBytes, config.http.bodyIdleTimeoutMs, bodies, {
    keyId: admission.key.record.id,
    accountId: admission.account?.record.id,
    ip: credentials.clientIp,
  });
  if (config.log.bodies) context.record.requestBody = body;
  if (services.requestRecords !== undefined) {
    // The key or account decides now; a model only once the body is parsed (runRequest).
    const kept =
      admission.key.record.requestLog?.bodies === true || admission.account?.record.requestLog?.bodies === true;
    if (kept || config.requestLog.someModelKeepsBodies)
      context.record.bodies = { kept, request: body, reply: '', replyBytes: 0, limit: config.requestLog.maxBodyBytes };
  }
  return { admission, body };
}

/**
 * What a counting request takes from its key's counting budget before its body is read: its
 * declared length (a token is at least a byte, so no more tokens than bytes are in the
 * body), or the body limit for a body of unknown length. Charged up front, so requests sent
 * at once cannot all pass while their counts are still running.
 */
export function countingCostUpFront(request: IncomingMessage, bodyLimitBytes: number): number {
  const declared = Number(request.headers['content-length']);
  return Number.isSafeInteger(declared) && declared >= 0 ? Math.min(declared, bodyLimitBytes) : bodyLimitBytes;
}
