import { AccountCache } from '../billing/account-cache.js';
import { applyConfigToStore } from '../billing/apply-config.js';
import { Billing } from '../billing/billing.js';
import { SpendHoldBook } from '../billing/spend-hold-book.js';
import { loadTokenCounter } from '../billing/token-counter.js';
import { UsageJournal } from '../billing/usage-journal.js';
import { UsageLedger } from '../billing/usage-ledger.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import type { Logger } from '../observability/logger.js';
import { openStore, parseStoreLocation } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import { logAppliedKeys } from './log-applied-keys.js';

/** The store and the money kept in it. */
export interface Money {
  readonly store: Store;
  readonly accounts: AccountCache;
  /** Spend holds shared across instances; undefined when the store keeps none. */
  readonly holds: SpendHoldBook | undefined;
  readonly usage: UsageLedger;
  readonly billing: Billing;
}

/**
 * Opens the store, replays the usage journal, applies the configuration's keys and loads
 * the accounts: what must be in place before a request can be charged.
 */
export async function openMoney(config: GatewayConfig, logger: Logger, clock?: () => number): Promise<Money> {
  // The tokenizer's tables take ~0.4 s of synchronous loading: done before listening, and
  // only when a paid model needs estimates, so it never stalls requests in flight.
  if (config.models.some((model) => model.pricing !== undefined)) await loadTokenCounter();
  const store = await openStore(parseStoreLocation(config.store));
  const accounts = new AccountCache(store);
  accounts.windows.configure(config.budgetWindows);
  const journal =
    config.usage.journalDir === undefined
      ? undefined
      : new UsageJournal(config.usage.journalDir, {
          streamProgressIntervalMs: config.usage.streamProgressIntervalMs,
          onProgressError: (error) =>
            logger.error({ err: error }, 'stream progress could not be written to the usage journal'),
        });
  const holds = store.spendHolds === undefined ? undefined : new SpendHoldBook(store.spendHolds, accounts, logger);
  if (holds !== undefined) store.onChange((change) => holds.onStoreChange(change));
  const usage = new UsageLedger(store, accounts, journal, logger, config.usage, holds?.holder);
  await usage.replayJournal();
  logAppliedKeys(logger, await applyConfigToStore(store, config));
  await accounts.load();
  return { store, accounts, holds, usage, billing: new Billing(accounts, usage, holds, clock) };
}
