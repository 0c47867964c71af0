import { randomBytes } from 'node:crypto';

const RESPONSE_PREFIX = 'resp_';
/** An output item id: its kind, the response's own part, its index (`msg_<hex>_1`). */
const ITEM_ID = /^[a-z]+_([0-9a-f]{24})_\d+$/;

/** A fresh response id, `resp_` and 24 hex digits. */
export function newResponseId(): string {
  return `${RESPONSE_PREFIX}${randomBytes(12).toString('hex')}`;
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
  return match === null ? undefined : `${RESPONSE_PREFIX}${match[1] as string}`;
}
