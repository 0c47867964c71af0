import type { StoredResponse } from './stored-response.js';

/** What one `previous_response_id` may reach back through (responses.ts rows, bytes in all). */
export interface ConversationLimits {
  readonly maxResponses: number;
  readonly maxBytes: number;
}

/** A stored response and the UTF-8 bytes of its JSON. */
export interface ChainLink {
  readonly stored: StoredResponse;
  readonly bytes: number;
}

/**
 * Where stored responses live, scoped by account: a response read or deleted with another
 * account's id is not there, and one account's save never replaces another's (the same id
 * may be held by two accounts). A response past its retention is not there either.
 */
export interface ResponseStore {
  /**
   * Keeps `r` (replacing this account's with the same id); an oversized response, or one of
   * an account whose stored responses are full, is not kept (logged, never thrown).
   */
  save(r: StoredResponse): Promise<void>;
  get(accountId: string, id: string): Promise<StoredResponse | undefined>;
  /**
   * The response and its ancestors, newest first, read at once: at most
   * `limits.maxResponses + 1` of them, and no more once their bytes pass `limits.maxBytes`;
   * only the first when its depth already passes `limits.maxResponses`.
   */
  chain(accountId: string, id: string, limits: ConversationLimits): Promise<ChainLink[]>;
  /** This account's live responses holding an output item with one of these ids (at most one per id). */
  holdingItems(accountId: string, itemIds: readonly string[]): Promise<StoredResponse[]>;
  /** True when the account's stored responses were last found full (no store read). */
  isFull(accountId: string): boolean;
  /** True when it was there (and this account's) and is gone now. */
  delete(accountId: string, id: string): Promise<boolean>;
}
