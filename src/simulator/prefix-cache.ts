/** Counters of a prefix cache, in tokens, as vLLM's `prefix_cache_queries` / `prefix_cache_hits` count them. */
export interface PrefixCacheCounters {
  /** Prompt tokens looked up (every prompt token of every request). */
  queriedTokens: number;
  /** Of those, the tokens found cached. */
  hitTokens: number;
}

/**
 * An LRU of cached prompt blocks, measured in tokens (`capacityTokens` / `blockTokens`
 * blocks), keyed by `promptBlockHashes`. A lookup finds the longest run of the prompt's
 * blocks that is cached from its start (a hit is always a prefix), then stores every
 * block of the prompt. Blocks are refreshed from the prompt's last to its first, as vLLM
 * returns a finished request's blocks to its free queue in reverse order: a conversation's
 * opening, which every later turn shares, is evicted after its tail.
 */
export class PrefixCache {
  readonly capacityTokens: number;
  readonly blockTokens: number;
  readonly #capacityBlocks: number;
  /** Map order is recency order: the first key is the least recently used. */
  readonly #blocks = new Map<number, true>();
  #queriedTokens = 0;
  #hitTokens = 0;

  constructor(capacityTokens: number, blockTokens: number) {
    if (!Number.isInteger(blockTokens) || blockTokens < 1)
      throw new RangeError('PrefixCache: blockTokens must be an integer >= 1');
    if (!Number.isFinite(capacityTokens) || capacityTokens < blockTokens)
      throw new RangeError('PrefixCache: capacityTokens must hold at least one block');
    this.capacityTokens = capacityTokens;
    this.blockTokens = blockTokens;
    this.#capacityBlocks = Math.floor(capacityTokens / blockTokens);
  }

  /**
   * The tokens of a `promptTokens`-token prompt found cached (`blockHashes` its block keys),
   * counted in the counters; the prompt's blocks are cached from now on (least recently
   * used blocks evicted past the capacity). At least one prompt token is always computed,
   * as in vLLM: a prompt cached whole reports one block less.
   */
  lookupAndStore(blockHashes: readonly number[], promptTokens: number): number {
    let hitBlocks = 0;
    while (hitBlocks < blockHashes.length && this.#blocks.has(blockHashes[hitBlocks] as number)) hitBlocks++;
    let cachedTokens = hitBlocks * this.blockTokens;
    if (cachedTokens >= promptTokens) cachedTokens = Math.max(0, (hitBlocks - 1) * this.blockTokens);
    this.#queriedTokens += promptTokens;
    this.#hitTokens += cachedTokens;
    // A prompt longer than the cache keeps only its opening blocks.
    const kept = Math.min(blockHashes.length, this.#capacityBlocks);
    for (let index = kept - 1; index >= 0; index--) {
      const key = blockHashes[index] as number;
      this.#blocks.delete(key);
      this.#blocks.set(key, true);
    }
    while (this.#blocks.size > this.#capacityBlocks) {
      const oldest = this.#blocks.keys().next().value as number;
      this.#blocks.delete(oldest);
    }
    return cachedTokens;
  }

  /** Tokens held in cached blocks. */
  get cachedTokens(): number {
    return this.#blocks.size * this.blockTokens;
  }

  get counters(): PrefixCacheCounters {
    return { queriedTokens: this.#queriedTokens, hitTokens: this.#hitTokens };
  }

  /** Empties the cache; the counters keep counting (Prometheus counters only go up). */
  clear(): void {
    this.#blocks.clear();
  }
}
