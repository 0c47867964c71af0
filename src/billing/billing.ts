import type { Principal } from '../auth/key-registry.js';
import type { ModelConfig, ReasoningEffort } from '../config/gateway-config.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { gatewayError } from '../errors/gateway-error.js';
import type { RequestContext } from '../context/request-context.js';
import type { ChatRequest } from '../protocol/openai/chat-request-schema.js';
import type { ReplySummary } from '../providers/types.js';
import type { UsageRow } from '../store/records.js';
import type { UsageLedger } from './usage-ledger.js';
import type { AccountCache, CachedAccount, CachedKey } from './account-cache.js';
import { streamedUsage } from './booked-usage.js';
import {
  bookedFeatures,
  isPaid,
  NO_FEATURE_USE,
  reservedPrices,
  reservedToolNano,
  settledPrices,
  toolCallsNano,
  type FeatureUse,
  type BookedFeatures,
  type ReportedFeatures,
} from './feature-prices.js';
import { countPromptTokens, marksCacheBreakpoints, outputCapOf, type OutputCap } from './estimate-request.js';
import { nanoToUsd } from './money.js';
import { costOf, nanoPrices, tokensOf, worstCaseCost, type NanoPrices, type PricedTokens } from './prices.js';
import { holdShortfall, type HoldRequest, type SpendHoldBook } from './spend-hold-book.js';
import { tokenCounter } from './token-counter.js';
import { reservedPromptTokens } from './unresolved-inputs.js';
import { isoNow } from '../time/iso-now.js';

const NO_TOKENS = { prompt: 0, cached: 0, cacheWrite: 0, cacheWrite1h: 0, completion: 0, reasoning: 0 };

/** How a request ended, for its usage row. */
export interface RequestOutcome {
  readonly status: number;
  readonly errorCode?: string;
}

/** What a request's reservation was priced on. */
interface CostEstimate {
  readonly model: ModelConfig;
  /** Undefined for a free model (nothing reserved, nothing charged). */
  readonly prices: NanoPrices | undefined;
  /** The worst-case cost reserved, in nano-USD. */
  readonly costNano: number;
  readonly cap: OutputCap;
  /** The prompt as the reservation counted it (paid models); a cut stream's progress is booked on it. */
  readonly promptTokens: number | undefined;
  /** The priced features the request may use (server tools, betas), reserved for and priced at settlement. */
  readonly use: FeatureUse;
}

/**
 * The money side of one request: what it reserved before routing, settled exactly once
 * when it ends (PRODUCT.md decision 12). Settling releases the reservation, prices the
 * usage the node reported (or the gateway's count of a cut stream) and books the row.
 */
export class RequestCharge {
  private settled = false;
  private untrack: (() => void) | undefined;

  /** The per-choice output cap the reservation was priced on; the node is sent the same. */
  readonly outputCap: OutputCap;

  constructor(
    private readonly ledger: UsageLedger,
    private readonly key: CachedKey,
    private readonly account: CachedAccount | undefined,
    private readonly estimate: CostEstimate,
  ) {
    this.outputCap = estimate.cap;
  }

  settle(context: RequestContext, outcome: RequestOutcome): void {
    if (this.settled) return;
    this.settled = true;
    // The final row supersedes the stream's progress records; none is written after it.
    this.untrack?.();
    this.key.reservedNano -= this.estimate.costNano;
    if (this.account !== undefined) this.account.reservedNano -= this.estimate.costNano;
    const record = context.record;
    // Only a request that reached a node is booked (issue 4: one row per such request).
    if (record.attempts.length === 0) return;
    const tokens = record.usage === undefined ? NO_TOKENS : tokensOf(record.usage);
    const { costNano, features } = this.costOf(tokens, record.reportedFeatures);
    this.key.pendingNano += costNano;
    if (this.account !== undefined) this.account.pendingNano += costNano;
    record.costUsd = nanoToUsd(costNano);
    this.ledger.book(this.row(context, tokens, costNano, record.usageEstimated === true, outcome, features));
  }

  /**
   * Journals the committed stream's usage so far until it settles, so a process killed
   * mid-stream still charges what was streamed (docs/keys-and-money.md, crash guarantee).
   */
  trackStream(context: RequestContext, request: ChatRequest, summary: ReplySummary): void {
    if (this.settled || this.untrack !== undefined) return;
    this.untrack = this.ledger.trackStream(() => {
      const tokens = tokensOf(streamedUsage(request, summary, this.estimate.promptTokens));
      const { costNano, features } = this.costOf(tokens, summary);
      return this.row(context, tokens, costNano, true, { status: 200 }, features);
    });
  }

  /**
   * The cost of the usage: tokens at the model's prices, or those of the service tier the
   * node reported and of the betas forwarded (when the model lists them), plus the
   * server-tool calls the node reported at their prices; and the features the row shows.
   */
  private costOf(
    tokens: PricedTokens,
    reported: ReportedFeatures | undefined,
  ): { costNano: number; features: BookedFeatures | undefined } {
    const { model, prices: base, use } = this.estimate;
    if (model.pricedFeatures === undefined)
      return {
        costNano: base === undefined ? 0 : costOf(tokens, base),
        features: bookedFeatures(reported?.serverToolCalls, undefined, []),
      };
    const { prices, tier, betas } = settledPrices(model, base, use, reported ?? {}, tokens.prompt);
    return {
      costNano: costOf(tokens, prices) + toolCallsNano(model, reported?.serverToolCalls),
      features: bookedFeatures(reported?.serverToolCalls, tier, betas),
    };
  }

  private row(
    context: RequestContext,
    tokens: PricedTokens,
    costNano: number,
    estimated: boolean,
    outcome: RequestOutcome,
    features: BookedFeatures | undefined,
  ): UsageRow {
    const record = context.record;
    const lastAttempt = record.attempts[record.attempts.length - 1];
    return {
      requestId: context.requestId,
      correlationId: context.correlationId,
      keyId: this.key.record.id,
      accountId: this.account?.record.id ?? null,
      model: this.estimate.model.id,
      node: lastAttempt?.node ?? null,
      attempts: record.attempts.length,
      promptTokens: tokens.prompt,
      completionTokens: tokens.completion,
      reasoningTokens: tokens.reasoning,
      cachedTokens: tokens.cached,
      cacheWriteTokens: tokens.cacheWrite,
      cacheWrite1hTokens: tokens.cacheWrite1h,
      costNano,
      estimated,
      status: outcome.status,
      errorCode: outcome.errorCode ?? null,
      latencyMs: Math.round((performance.now() - context.startedAt) * 100) / 100,
      firstByteMs: record.firstByteMs ?? null,
      stream: record.stream,
      finishReason: record.finishReason ?? null,
      frontDoor: record.frontDoor,
      features: features ?? null,
      affinity: record.affinity ?? 'none',
      createdAt: isoNow(),
    };
  }
}

/** Holds are asked for with room for this many more requests like the one that asked. */
const HOLD_HEADROOM_REQUESTS = 16;
/**
 * A request short of a budget other instances hold asks again after each of these waits
 * while they give back what they do not use (they do once idle on it for `wantedIdleMs`),
 * then is refused. Every wait is shorter than SpendHoldSettings.wantedForMs, so the want
 * each contended ask sends never lapses in between.
 */
const CONTENDED_WAITS_MS = [50, 100, 200, 400] as const;

/**
 * Spend checks on the request path, all in memory: the key's spend limit (402
 * api_key_limit_exceeded) and the account's balance (402 insufficient_balance) against the
 * worst-case cost of the request, which is then reserved until the request settles, so
 * concurrent requests cannot spend the same money twice. When instances share the store,
 * each also spends only out of its spend holds (SpendHoldBook), so concurrent requests on
 * different instances cannot either; the store is asked only when a hold runs short.
 */
export class Billing {
  private readonly prices = new WeakMap<ModelConfig, NanoPrices>();

  constructor(
    private readonly cache: AccountCache,
    private readonly ledger: UsageLedger,
    private readonly holds?: SpendHoldBook,
  ) {}

  private pricesOf(model: ModelConfig): NanoPrices | undefined {
    if (model.pricing === undefined) return undefined;
    let prices = this.prices.get(model);
    if (prices === undefined) {
      prices = nanoPrices(model.pricing);
      this.prices.set(model, prices);
    }
    return prices;
  }

  /** The cached key and account behind a principal the cache itself authenticated. */
  entriesOf(principal: Principal): { key: CachedKey; account: CachedAccount | undefined } {
    const key = this.cache.key(principal.keyId);
    if (key === undefined) throw gatewayError('invalid_api_key');
    return { key, account: this.cache.account(key.record.accountId) };
  }

  /**
   * Checks and reserves the request's worst-case cost; free models reserve nothing. A
   * promise only while the tokenizer is still loading (the first requests after start),
   * so the request path need not wait a turn.
   */
  reserve(
    key: CachedKey,
    account: CachedAccount | undefined,
    model: ModelConfig,
    request: ChatRequest,
    effort?: ReasoningEffort,
    use: FeatureUse = NO_FEATURE_USE,
  ): RequestCharge | Promise<RequestCharge> {
    const prices = this.pricesOf(model);
    // Nothing is reserved, but the node still gets the cap (the prompt is not counted: only a
    // cap bound by the context needs it, and that cap is not sent to nodes that can go without).
    if (!isPaid(model))
      return new RequestCharge(this.ledger, key, account, {
        model,
        prices: undefined,
        costNano: 0,
        cap: outputCapOf(request, model, 0, effort),
        promptTokens: undefined,
        use,
      });
    const counter = tokenCounter();
    if (typeof counter !== 'function')
      return counter.then((count) => this.reserveCounted(key, account, model, request, prices, count, effort, use));
    return this.reserveCounted(key, account, model, request, prices, counter, effort, use);
  }

  private reserveCounted(
    key: CachedKey,
    account: CachedAccount | undefined,
    model: ModelConfig,
    request: ChatRequest,
    prices: NanoPrices | undefined,
    count: (text: string) => number,
    effort: ReasoningEffort | undefined,
    use: FeatureUse,
  ): RequestCharge | Promise<RequestCharge> {
    const promptTokens = countPromptTokens(request, count);
    const cap = outputCapOf(request, model, promptTokens, effort);
    // What the internal form leaves out for a native node is priced too; input the gateway cannot size at the model's bound (unresolved-inputs.ts).
    const reservedPrompt = reservedPromptTokens(request, model, promptTokens, count);
    // A model with priced features reserves at its dearest token prices and for every tool call it allows.
    const worstPrices = model.pricedFeatures === undefined ? prices : reservedPrices(model, prices, use);
    const costNano =
      (worstPrices === undefined
        ? 0
        : worstCaseCost(reservedPrompt, cap.tokens * (request.n ?? 1), worstPrices, marksCacheBreakpoints(request))) +
      reservedToolNano(model, use);
    const estimate: CostEstimate = { model, prices, costNano, cap, promptTokens, use };
    const holds = this.holds;
    if (holds !== undefined && !holds.covers(key, account, costNano))
      return this.reserveByHolds(holds, key, account, estimate);
    holds?.touchAll(key, account);
    return this.reserveEstimate(key, account, estimate);
  }

  /** Checks the cached figures and reserves; nothing awaits from the check to the reservation. */
  private reserveEstimate(key: CachedKey, account: CachedAccount | undefined, estimate: CostEstimate): RequestCharge {
    checkCachedFunds(key, account, estimate.costNano);
    if (account !== undefined) account.reservedNano += estimate.costNano;
    key.reservedNano += estimate.costNano;
    return new RequestCharge(this.ledger, key, account, estimate);
  }

  /**
   * Makes this instance's holds cover the estimate on top of what is in flight, asking the
   * store when they fall short, and reserves in the same turn as the last check: requests
   * that waited on the same ask cannot all pass it before any of them reserved. 402 when the
   * store cannot grant enough. While the store is unreachable, the cache's figures alone
   * decide (docs/several-instances.md).
   */
  private async reserveByHolds(
    holds: SpendHoldBook,
    key: CachedKey,
    account: CachedAccount | undefined,
    estimate: CostEstimate,
  ): Promise<RequestCharge> {
    const estimateNano = estimate.costNano;
    const keyLimited = key.record.spendLimitNano !== null;
    for (let asks = 0, waits = 0; ;) {
      const keyShort = keyLimited ? holdShortfall(key, estimateNano) : 0;
      const accountShort = account === undefined ? 0 : holdShortfall(account, estimateNano);
      if (keyShort <= 0 && accountShort <= 0) break;
      // Short after asking: refused, unless other instances hold the budget and have been
      // asked to give back what they do not use; then checked (other requests of this
      // instance may have asked meanwhile) and asked again after a wait.
      if (asks > waits) {
        const contended =
          (keyShort > 0 && holds.contended('key', key.record.id)) ||
          (accountShort > 0 && account !== undefined && holds.contended('account', account.record.id));
        const wait = CONTENDED_WAITS_MS[waits];
        if (!contended || wait === undefined)
          throw gatewayError(keyShort > 0 ? 'api_key_limit_exceeded' : 'insufficient_balance');
        waits++;
        await sleep(wait);
        continue;
      }
      if (!holds.reachable) return this.reserveEstimate(key, account, estimate);
      // The store said a moment ago that there is no more: refused without asking again.
      if (keyShort > 0 && holds.exhausted('key', key.record.id)) throw gatewayError('api_key_limit_exceeded');
      if (accountShort > 0 && account !== undefined && holds.exhausted('account', account.record.id))
        throw gatewayError('insufficient_balance');
      const headroomNano = estimateNano * HOLD_HEADROOM_REQUESTS;
      const requests: HoldRequest[] = [];
      if (keyShort > 0)
        requests.push({ kind: 'key', id: key.record.id, entry: key, deficitNano: keyShort, headroomNano });
      if (accountShort > 0 && account !== undefined)
        requests.push({
          kind: 'account',
          id: account.record.id,
          entry: account,
          deficitNano: accountShort,
          headroomNano,
        });
      // Both subjects are in use while the request waits: neither is given back from under it.
      holds.touchAll(key, account);
      asks++;
      try {
        await holds.cover(requests);
      } catch {
        return this.reserveEstimate(key, account, estimate);
      }
    }
    holds.touchAll(key, account);
    return this.reserveEstimate(key, account, estimate);
  }
}

/** The limit and balance as this instance knows them, less what it has in flight. */
function checkCachedFunds(key: CachedKey, account: CachedAccount | undefined, estimateNano: number): void {
  const limit = key.record.spendLimitNano;
  if (limit !== null && key.record.spentNano + key.pendingNano + key.reservedNano + estimateNano > limit) {
    throw gatewayError('api_key_limit_exceeded');
  }
  if (account !== undefined) {
    const available = account.record.balanceNano - account.pendingNano - account.reservedNano;
    if (available <= 0 || available < estimateNano) throw gatewayError('insufficient_balance');
  }
}
