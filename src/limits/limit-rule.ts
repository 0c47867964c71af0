/**
 * One limit to apply to one request: a GCRA bucket named by `key` that lets `limit` units
 * through per `periodMs`, and what to do with it this time.
 *
 * - `consume`: take `cost` units if they fit; otherwise refuse (the default for requests).
 * - `check`: refuse unless `cost` units would fit, but take nothing (a TPM key in debt).
 * - `force`: take `cost` units whether they fit or not, possibly running into debt
 *   (actual tokens charged after a reply); never refuses.
 */
export type LimitMode = 'consume' | 'check' | 'force';

/** A limit applied to one request (see `LimitMode`). */
export interface LimitRule {
  /** What the limit is, for headers, logs and tests: e.g. `key.rpm`, `ip.rps`, `account.tpm`. */
  readonly name: string;
  /** The bucket's storage key, unique per subject and limit (no secrets: it may reach Redis). */
  readonly key: string;
  /** Units allowed per period; at least 1. */
  readonly limit: number;
  readonly periodMs: number;
  /** Units this request takes (1 for a request; tokens for TPM). */
  readonly cost: number;
  readonly mode: LimitMode;
}

/** What one rule said about one request. Times are milliseconds, unrounded. */
export interface LimitOutcome {
  readonly name: string;
  readonly limit: number;
  readonly periodMs: number;
  /** The rule would let this request through (always true for `force`). */
  readonly fits: boolean;
  /** Units left right after this decision (after consuming, when the whole request passed). */
  readonly remaining: number;
  /** Until the bucket is full again (remaining back to `limit`): the window has fully reset. */
  readonly resetMs: number;
  /** 0 when it fits; else the exact wait until it would. */
  readonly retryAfterMs: number;
}
