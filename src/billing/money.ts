import { MAX_BALANCE_USD } from '../config/money-bounds.js';

/**
 * Money is integer nano-USD (1 USD = 1,000,000,000) inside the gateway and the store, so
 * balances, spend and the ledger add up exactly; USD numbers appear only at the edges
 * (configuration, admin API, CLI).
 */
export const NANO_PER_USD = 1_000_000_000;

export { MAX_BALANCE_USD };
/** MAX_BALANCE_USD in nano-USD. */
export const MAX_BALANCE_NANO = MAX_BALANCE_USD * NANO_PER_USD;

export function usdToNano(usd: number): number {
  return Math.round(usd * NANO_PER_USD);
}

export function nanoToUsd(nano: number): number {
  return nano / NANO_PER_USD;
}
