import type { StoredResponse } from './stored-response.js';

/**
 * Where stored responses live, scoped by account: a response read or deleted with another
 * account's id is not there. A response past its retention is not there either.
 */
export interface ResponseStore {
  /** Keeps `r` (replacing one with the same id); an oversized response is not kept (logged, never thrown). */
  save(r: StoredResponse): Promise<void>;
  get(accountId: string, id: string): Promise<StoredResponse | undefined>;
  /** True when it was there (and this account's) and is gone now. */
  delete(accountId: string, id: string): Promise<boolean>;
}
