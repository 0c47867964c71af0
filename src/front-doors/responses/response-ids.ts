const RESPONSE_PREFIX = 'resp_';
const REQUEST_PREFIX = 'req_';
/** An output item id: its kind, the response's own part, its index (`msg_<part>_1`). */
const ITEM_ID = /^[a-z]+_([0-9A-Z]{24})_\d+$/;

/**
 * The id of the response a request makes: `resp_` and the request id's own part (24
 * Crockford base-32 characters, time-ordered and unique like the request id), so one id
 * leads to the other in the logs, the ledger and the store (inbound-protocols rule C3), at
 * no cost of its own.
 */
export function newResponseId(requestId: string): string {
  return `${RESPONSE_PREFIX}${requestId.slice(REQUEST_PREFIX.length)}`;
}

/**
 * The id of an output item of a response: `rs_…`, `msg_…`, `fc_…`, `ctc_…` with the
 * response's own part and the item's index, so an `item_reference` leads back to the
 * stored response that holds it (inbound-protocols 2.12).
 */
export function outputItemId(prefix: string, responseId: string, index: number): string {
  return `${prefix}_${responseId.slice(RESPONSE_PREFIX.length)}_${index}`;
}

/** The response an item id of ours belongs to; undefined for an id we did not make. */
export function responseIdOfItem(itemId: string): string | undefined {
  const match = ITEM_ID.exec(itemId);
  return match?.[1] === undefined ? undefined : `${RESPONSE_PREFIX}${match[1]}`;
}
