import { mayUseModel } from '../billing/access-policy.js';
import { countPromptTokens } from '../billing/estimate-request.js';
import { tokenCounter } from '../billing/token-counter.js';
import { gatewayError } from '../errors/gateway-error.js';
import type { GatewayServices } from '../gateway-services.js';
import { rateLimitError } from '../limits/rate-limit-response.js';
import type { ChatRequest } from '../protocol/openai/chat-request-schema.js';
import type { Admission } from './admit.js';

/**
 * The prompt of a request as the gateway's tokenizer counts it (the count reservations
 * use), for both counting routes, POST /v1/messages/count_tokens and POST
 * /v1/responses/input_tokens, with one policy: the model must exist and the key may use it
 * (404 model_unavailable), and the key's counting budget (`limits.count_tokens_per_minute`)
 * must not be in debt (429 rate_limited with Retry-After). The tokens counted are charged to
 * that budget: counting is free of money, not of CPU, so one key cannot keep the event loop busy.
 */
export async function countInputTokens(
  services: GatewayServices,
  admission: Admission,
  chat: ChatRequest,
): Promise<number> {
  const model = services.models.get(chat.model);
  if (model === undefined || !mayUseModel(admission.key.record, admission.account?.record, model.id))
    throw gatewayError('model_unavailable', { param: 'model', params: { model: chat.model } });
  const keyId = admission.key.record.id;
  const limiter = services.limiter;
  const decision = await limiter.checkTokenCounting(keyId);
  if (!decision.allowed) throw rateLimitError(decision);
  const counter = tokenCounter();
  const tokens = countPromptTokens(chat, counter instanceof Promise ? await counter : counter);
  void limiter.chargeTokenCounting(keyId, tokens).catch(() => undefined);
  return tokens;
}
