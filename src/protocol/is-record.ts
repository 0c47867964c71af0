/** Kept for the doors' imports until they move: the one `isRecord` lives in validation/. */
export { isRecord } from '../validation/is-record.js';
