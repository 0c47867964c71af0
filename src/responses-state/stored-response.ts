/**
 * One response kept for `previous_response_id`, `GET /v1/responses/{id}` and its input
 * items (PRODUCT.md decision 17), owned by the account of the key that made it.
 */
export interface StoredResponse {
  /** The `resp_…` id the client received. */
  id: string;
  /** Who may read it: see `responseOwner`. */
  accountId: string;
  /** Unix seconds, as the Response object's `created_at`. */
  createdAt: number;
  model: string;
  /** The node that made it (affinity for provider-owned artifacts); null when unknown. */
  node: string | null;
  /** The Response object as returned to the client (JSON-serializable). */
  response: Record<string, unknown>;
  /** This request's own input items, normalized to item objects with ids. */
  inputItems: Record<string, unknown>[];
  previousResponseId: string | null;
  /** Stored responses in its conversation up to and including this one (1: it continues none); null when unknown (stored before this was kept). */
  depth: number | null;
}
