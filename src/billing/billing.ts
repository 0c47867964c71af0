import type { Principal } from '../auth/key-registry.js';
import type { ModelConfig, ReasoningEffort } from '../config/gateway-config.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { gatewayError, type GatewayError } from '../errors/gateway-error.js';
import type { RequestContext, RequestRun } from '../context/request-context.js';
import { whenReady } from '../context/when-ready.js';
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
import { holdShortfall, type HoldRequest, type HoldSubjectEntry, type SpendHoldBook } from './spend-hold-book.js';
import type { BudgetOwner, WindowDemand, WindowEntry } from './budget-windows.js';
import { balanceRefusal, budgetRefusal, keyLimitRefusal, type ReservationSize } from './spend-refusal.js';
import { tokenCounter } from './token-counter.js';
import { NOTHING_LEFT_OUT, reservedPromptTokens, type LeftOut } from './unresolved-inputs.js';
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
    /** The budget windows of the request's start: its cost books into them whenever it settles. */
    private readonly windows: readonly WindowEntry[],
    private readonly endUser: string | undefined,
  ) {
    this.outputCap = estimate.cap;
  }

  /**
   * Settles the charge on the run's values; returns the USD booked, when a row was (only a
   * request that reached a node is booked, issue 4: one row per such request).
   */
  settle(context: RequestContext, outcome: RequestOutcome, run: RequestRun): number | undefined {
    if (this.settled) return undefined;
    this.settled = true;
    // The final row supersedes the stream's progress records; none is written after it.
    this.untrack?.();
    this.key.reservedNano -= this.estimate.costNano;
    if (this.account !== undefined) this.account.reservedNano -= this.estimate.costNano;
    for (const window of this.windows) window.reservedNano -= this.estimate.costNano;
    if (run.attempts.length === 0) return undefined;
    const booked = run.booked;
    const tokens = booked === undefined ? NO_TOKENS : tokensOf(booked.usage);
    const { costNano, features } = this.costOf(tokens, booked?.reportedFeatures);
    this.key.pendingNano += costNano;
    if (this.account !== undefined) this.account.pendingNano += costNano;
    for (const window of this.windows) window.pendingNano += costNano;
    this.ledger.book(this.row(context, run, tokens, costNano, booked?.estimated === true, outcome, features));
    return nanoToUsd(costNano);
  }

  /**
   * Journals the committed stream's usage so far until it settles, so a process killed
   * mid-stream still charges what was streamed (docs/keys-and-money.md, crash guarantee).
   * `run` is the request as it stands when the stream starts; `promptTokens` its prompt as an
   * estimate counts it (`estimatedPromptTokens`: the stream does not keep the request).
   */
  trackStream(context: RequestContext, run: RequestRun, promptTokens: number, summary: ReplySummary): void {
    if (this.settled || this.untrack !== undefined) return;
    this.untrack = this.ledger.trackStream(() => {
      const tokens = tokensOf(streamedUsage(promptTokens, summary, this.estimate.promptTokens));
      const { costNano, features } = this.costOf(tokens, summary);
      return this.row(context, run, tokens, costNano, true, { status: 200 }, features);
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
    run: RequestRun,
    tokens: PricedTokens,
    costNano: number,
    estimated: boolean,
    outcome: RequestOutcome,
    features: BookedFeatures | undefined,
  ): UsageRow {
    const lastAttempt = run.attempts[run.attempts.length - 1];
    return {
      requestId: context.requestId,
      correlationId: context.correlationId,
      keyId: this.key.record.id,
      accountId: this.account?.record.id ?? null,
      model: this.estimate.model.id,
      modelRequested: run.model === this.estimate.model.id ? null : run.model,
      node: lastAttempt?.node ?? null,
      attempts: run.attempts.length,
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
      firstByteMs: run.firstByteMs ?? null,
      stream: run.stream,
      finishReason: run.finishReason ?? null,
      frontDoor: run.frontDoor,
      endUser: run.endUser ?? null,
      features: features ?? null,
      affinity: run.affinity ?? 'none',
      budgetWindows: this.windows.length === 0 ? null : this.windows.map((window) => window.ref),
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
    /** The wall clock budget windows are chosen by (epoch ms); tests move it. */
    readonly clock: () => number = Date.now,
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
   * Checks and reserves the request's worst-case cost against the key's limit, the
   * account's balance and every budget window it falls in (the key's, the account's, and
   * the end user's of the key); free models reserve nothing. A promise only while the
   * tokenizer is still loading (the first requests after start), or when a window is used
   * for the first time since start (its spend is read from the store once).
   */
  reserve(
    key: CachedKey,
    account: CachedAccount | undefined,
    model: ModelConfig,
    request: ChatRequest,
    effort?: ReasoningEffort,
    use: FeatureUse = NO_FEATURE_USE,
    endUser?: string,
    leftOut: LeftOut = NOTHING_LEFT_OUT,
  ): RequestCharge | Promise<RequestCharge> {
    const prices = this.pricesOf(model);
    // Nothing is reserved, but the node still gets the cap (the prompt is not counted: only a
    // cap bound by the context needs it, and that cap is not sent to nodes that can go without).
    if (!isPaid(model))
      return new RequestCharge(
        this.ledger,
        key,
        account,
        {
          model,
          prices: undefined,
          costNano: 0,
          cap: outputCapOf(request, model, 0, effort),
          promptTokens: undefined,
          use,
        },
        NO_WINDOWS,
        endUser,
      );
    const counter = tokenCounter();
    const startedAt = this.clock();
    if (typeof counter !== 'function')
      return counter.then((count) =>
        this.reserveCounted(key, account, model, request, prices, count, effort, use, endUser, startedAt, leftOut),
      );
    return this.reserveCounted(key, account, model, request, prices, counter, effort, use, endUser, startedAt, leftOut);
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
    endUser: string | undefined,
    startedAt: number,
    leftOut: LeftOut,
  ): RequestCharge | Promise<RequestCharge> {
    const promptTokens = countPromptTokens(request, count);
    const cap = outputCapOf(request, model, promptTokens, effort);
    // What the internal form leaves out for a native node is priced too; input the gateway cannot size at the model's bound (unresolved-inputs.ts).
    const reservedPrompt = reservedPromptTokens(request, model, promptTokens, count, leftOut);
    // A model with priced features reserves at its dearest token prices and for every tool call it allows.
    const worstPrices = model.pricedFeatures === undefined ? prices : reservedPrices(model, prices, use);
    const outputTokens = cap.tokens * (request.n ?? 1);
    const costNano =
      (worstPrices === undefined
        ? 0
        : worstCaseCost(reservedPrompt, outputTokens, worstPrices, marksCacheBreakpoints(request, leftOut))) +
      reservedToolNano(model, use);
    const estimate: CostEstimate = { model, prices, costNano, cap, promptTokens, use };
    const size: ReservationSize = { promptTokens: reservedPrompt, outputTokens, costNano };
    const demands = this.windowDemandsOf(key, account, endUser, startedAt);
    if (demands.length === 0) return this.reserveIn(key, account, estimate, size, NO_WINDOWS, endUser);
    const windows = this.cache.windows.entriesOf(demands);
    return whenReady(windows, (entries) => this.reserveIn(key, account, estimate, size, entries, endUser));
  }

  /** The budget windows a request started at `epochMs` falls in. */
  private windowDemandsOf(
    key: CachedKey,
    account: CachedAccount | undefined,
    endUser: string | undefined,
    epochMs: number,
  ): WindowDemand[] {
    const keyBudgets = key.record.budgets;
    const accountBudgets = account?.record.budgets ?? null;
    const userBudgets = endUser === undefined ? null : key.record.endUserBudgets;
    if (keyBudgets === null && accountBudgets === null && userBudgets === null) return [];
    const owners: BudgetOwner[] = [{ kind: 'key', id: key.record.id, budgets: keyBudgets }];
    if (account !== undefined) owners.push({ kind: 'account', id: account.record.id, budgets: accountBudgets });
    return this.cache.windows.demandsOf(
      owners,
      endUser === undefined || userBudgets === null
        ? undefined
        : { keyId: key.record.id, name: endUser, budgets: userBudgets },
      epochMs,
    );
  }

  private reserveIn(
    key: CachedKey,
    account: CachedAccount | undefined,
    estimate: CostEstimate,
    size: ReservationSize,
    windows: readonly WindowEntry[],
    endUser: string | undefined,
  ): RequestCharge | Promise<RequestCharge> {
    const holds = this.holds;
    if (holds === undefined) return this.reserveEstimate(key, account, estimate, size, windows, endUser);
    const subjects = subjectsOf(key, account, windows);
    if (!holds.covers(subjects, estimate.costNano))
      return this.reserveByHolds(holds, key, account, estimate, size, windows, endUser, subjects);
    holds.touchAll(subjects);
    return this.reserveEstimate(key, account, estimate, size, windows, endUser);
  }

  /** Checks the cached figures and reserves; nothing awaits from the check to the reservation. */
  private reserveEstimate(
    key: CachedKey,
    account: CachedAccount | undefined,
    estimate: CostEstimate,
    size: ReservationSize,
    windows: readonly WindowEntry[],
    endUser: string | undefined,
  ): RequestCharge {
    checkCachedFunds(key, account, windows, size);
    if (account !== undefined) account.reservedNano += estimate.costNano;
    key.reservedNano += estimate.costNano;
    for (const window of windows) window.reservedNano += estimate.costNano;
    return new RequestCharge(this.ledger, key, account, estimate, windows, endUser);
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
    size: ReservationSize,
    windows: readonly WindowEntry[],
    endUser: string | undefined,
    subjects: readonly HoldSubjectEntry[],
  ): Promise<RequestCharge> {
    const estimateNano = estimate.costNano;
    const refuse = (subject: HoldSubjectEntry) => refusalOf(subject, key, account, size);
    for (let asks = 0, waits = 0; ;) {
      const short = subjects.filter((subject) => holdShortfall(subject.entry, estimateNano) > 0);
      const first = short[0];
      if (first === undefined) break;
      // Short after asking: refused, unless other instances hold the budget and have been
      // asked to give back what they do not use; then checked (other requests of this
      // instance may have asked meanwhile) and asked again after a wait.
      if (asks > waits) {
        const contended = short.some((subject) => holds.contended(subject.kind, subject.id));
        const wait = CONTENDED_WAITS_MS[waits];
        if (!contended || wait === undefined) throw refuse(first);
        waits++;
        await sleep(wait);
        continue;
      }
      if (!holds.reachable) return this.reserveEstimate(key, account, estimate, size, windows, endUser);
      // The store said a moment ago that there is no more: refused without asking again.
      const exhausted = short.find((subject) => holds.exhausted(subject.kind, subject.id));
      if (exhausted !== undefined) throw refuse(exhausted);
      const headroomNano = estimateNano * HOLD_HEADROOM_REQUESTS;
      const requests: HoldRequest[] = short.map((subject) => ({
        kind: subject.kind,
        id: subject.id,
        entry: subject.entry,
        deficitNano: holdShortfall(subject.entry, estimateNano),
        headroomNano,
        ...(subject.window === undefined ? {} : { window: subject.window }),
      }));
      // Every subject is in use while the request waits: none is given back from under it.
      holds.touchAll(subjects);
      asks++;
      try {
        await holds.cover(requests);
      } catch {
        return this.reserveEstimate(key, account, estimate, size, windows, endUser);
      }
    }
    holds.touchAll(subjects);
    return this.reserveEstimate(key, account, estimate, size, windows, endUser);
  }
}

const NO_WINDOWS: readonly WindowEntry[] = [];

/** What a request spends on, as spend holds see it: the key (with a limit), the account, each window. */
function subjectsOf(
  key: CachedKey,
  account: CachedAccount | undefined,
  windows: readonly WindowEntry[],
): HoldSubjectEntry[] {
  const subjects: HoldSubjectEntry[] = [];
  if (key.record.spendLimitNano !== null) subjects.push({ kind: 'key', id: key.record.id, entry: key });
  if (account !== undefined) subjects.push({ kind: 'account', id: account.record.id, entry: account });
  for (const window of windows)
    subjects.push({
      kind: 'window',
      id: window.id,
      entry: window,
      window: { ref: window.ref, limitNano: window.limitNano },
    });
  return subjects;
}

/** The 402 for a subject whose budget does not cover the request. */
function refusalOf(
  subject: HoldSubjectEntry,
  key: CachedKey,
  account: CachedAccount | undefined,
  size: ReservationSize,
): GatewayError {
  if (subject.kind === 'key') return keyLimitRefusal(key, size);
  if (subject.kind === 'account' && account !== undefined) return balanceRefusal(account, size);
  return budgetRefusal(subject.entry as WindowEntry, size);
}

/** The limit, balance and windows as this instance knows them, less what it has in flight. */
function checkCachedFunds(
  key: CachedKey,
  account: CachedAccount | undefined,
  windows: readonly WindowEntry[],
  size: ReservationSize,
): void {
  const estimateNano = size.costNano;
  const limit = key.record.spendLimitNano;
  if (limit !== null && key.record.spentNano + key.pendingNano + key.reservedNano + estimateNano > limit)
    throw keyLimitRefusal(key, size);
  if (account !== undefined) {
    const available = account.record.balanceNano - account.pendingNano - account.reservedNano;
    if (available <= 0 || available < estimateNano) throw balanceRefusal(account, size);
  }
  for (const window of windows)
    if (window.spentNano + window.pendingNano + window.reservedNano + estimateNano > window.limitNano)
      throw budgetRefusal(window, size);
}
