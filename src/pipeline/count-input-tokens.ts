import { mayUseModel } from '../billing/access-policy.js';
import { countPromptTokens } from '../billing/estimate-request.js';
import { tokenCounter } from '../billing/token-counter.js';
import { gatewayError } from '../errors/gateway-error.js';
import type { ConfigurationSnapshot } from '../configuration-snapshot.js';
import type { ChatRequest } from '../protocol/openai/chat-request-schema.js';
import type { Admission } from './admit.js';

/**
 * The prompt of a request as the gateway's tokenizer counts it (the count reservations
 * use), for both counting routes, POST /v1/messages/count_tokens and POST
 * /v1/responses/input_tokens, with one policy: the model must exist and the key may use it
 * (404 model_unavailable). Counting is free of money, not of CPU: the key's counting budget
 * (`limits.count_tokens_per_minute`) paid tokens at admission (`countingTokens`), before the
 * body was read (an upper bound of the body's tokens; 429 rate_limited with Retry-After
 * when they did not fit), and what was counted beyond it (a stored conversation) is charged
 * now, so one key cannot keep the event loop busy.
 */
export async function countInputTokens(
  snapshot: ConfigurationSnapshot,
  admission: Admission,
  chat: ChatRequest,
): Promise<number> {
  const model = snapshot.models.resolve(chat.model);
  if (model === undefined || !mayUseModel(admission.key.record, admission.account?.record, model.id))
    throw gatewayError('model_unavailable', { param: 'model', params: { model: chat.model } });
  const tokens = countPromptTokens(chat, await tokenCounter());
  void snapshot.limiter.chargeTokenCounting(admission.subject, tokens).catch(() => undefined);
  return tokens;
}
