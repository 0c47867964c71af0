/** Longer ids are no id the gateway or a node gave out. */
export const MAX_STORED_ID_LENGTH = 256;
/** Printable ASCII without spaces: every id the gateway makes, and the nodes' (`resp_…`, `msg_…`). */
const STORED_ID = /^[\x21-\x7e]+$/;

/**
 * Whether a client-sent response or item id can name something stored: ids of any other
 * form (a NUL byte, control characters, over MAX_STORED_ID_LENGTH) are not found without
 * asking the store, which could not hold them.
 */
export function isStoredIdForm(id: string): boolean {
  return id.length <= MAX_STORED_ID_LENGTH && STORED_ID.test(id);
}
