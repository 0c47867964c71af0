/**
 * The largest balance an account may be topped up or adjusted to, and the largest amount,
 * starting balance or spend limit the admin API and the configuration take (USD). Money is
 * held in nano-USD as JavaScript numbers, exact below 2^53 nano-USD (about 9 million USD);
 * this bound keeps every balance well inside that (issue 28 finding 11).
 */
export const MAX_BALANCE_USD = 1_000_000;
