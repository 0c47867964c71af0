import { gatewayError, type GatewayError } from '../errors/gateway-error.js';
import type { CachedAccount, CachedKey } from './account-cache.js';
import type { WindowEntry } from './budget-windows.js';
import { NANO_PER_USD } from './money.js';

/** What a request would reserve: its prompt as counted, its output cap (all choices) and their worst-case cost. */
export interface ReservationSize {
  readonly promptTokens: number;
  readonly outputTokens: number;
  readonly costNano: number;
}

/** USD as a message shows it: exact to the nano-USD, without trailing zeros (`0.000016`, `200`). */
export function usdText(nano: number): string {
  const sign = nano < 0 ? '-' : '';
  const whole = Math.floor(Math.abs(nano) / NANO_PER_USD);
  const fraction = String(Math.abs(nano) % NANO_PER_USD)
    .padStart(9, '0')
    .replace(/0+$/, '');
  return `${sign}${whole}${fraction === '' ? '' : `.${fraction}`}`;
}

function sizeParams(size: ReservationSize, remainingNano: number) {
  return {
    reserve_usd: usdText(size.costNano),
    prompt_tokens: size.promptTokens,
    output_tokens: size.outputTokens,
    remaining_usd: usdText(Math.max(0, remainingNano)),
  };
}

/** 402 api_key_limit_exceeded: the key's limit, what remains of it (spent and in flight deducted), what this request would reserve. */
export function keyLimitRefusal(key: CachedKey, size: ReservationSize): GatewayError {
  const limit = key.record.spendLimitNano ?? 0;
  const remaining = limit - key.record.spentNano - key.pendingNano - key.reservedNano;
  return gatewayError('api_key_limit_exceeded', {
    params: { ...sizeParams(size, remaining), limit_usd: usdText(limit) },
  });
}

/** 402 insufficient_balance: the balance left after requests in flight, and what this request would reserve. */
export function balanceRefusal(account: CachedAccount, size: ReservationSize): GatewayError {
  const remaining = account.record.balanceNano - account.pendingNano - account.reservedNano;
  return gatewayError('insufficient_balance', { params: sizeParams(size, remaining) });
}

/** 402 budget_exceeded: the window (whose, period, start), its limit, spent and reserved, when it resets, and the request's size. */
export function budgetRefusal(window: WindowEntry, size: ReservationSize): GatewayError {
  const spent = window.spentNano + window.pendingNano;
  const remaining = window.limitNano - spent - window.reservedNano;
  const ref = window.ref;
  return gatewayError('budget_exceeded', {
    params: {
      ...sizeParams(size, remaining),
      owner: ref.endUser !== null ? 'end_user' : ref.ownerKind,
      end_user: ref.endUser ?? undefined,
      period: ref.period,
      window_start: ref.start,
      resets_at: new Date(window.end).toISOString(),
      limit_usd: usdText(window.limitNano),
      spent_usd: usdText(spent),
      reserved_usd: usdText(window.reservedNano),
    },
  });
}
