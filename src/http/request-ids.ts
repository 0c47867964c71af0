import { randomFillSync } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const RANDOM_POOL = Buffer.alloc(4096);
let randomOffset = RANDOM_POOL.length;
let lastMs = 0;
let sequence = 0;

function encode(value: number, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    out = CROCKFORD[value % 32] + out;
    value = Math.floor(value / 32);
  }
  return out;
}

/** One id in a reused byte buffer, turned into a string once (no per-character strings). */
const ID = Buffer.alloc(28);
ID.write('req_', 'latin1');

/**
 * A unique, sortable request id (PRODUCT.md decision 9): `req_` + 10 characters of
 * milliseconds + 4 of a per-millisecond sequence + 10 random, Crockford base32. Ids of
 * one process sort in creation order; across processes, by millisecond.
 */
export function newRequestId(): string {
  const now = Date.now();
  if (now === lastMs) sequence++;
  else {
    lastMs = now;
    sequence = 0;
    ID.write(encode(now, 10), 4, 'latin1');
  }
  let value = sequence;
  for (let index = 17; index >= 14; index--) {
    ID[index] = CROCKFORD.charCodeAt(value % 32);
    value = Math.floor(value / 32);
  }
  if (randomOffset + 10 > RANDOM_POOL.length) {
    randomFillSync(RANDOM_POOL);
    randomOffset = 0;
  }
  for (let index = 18; index < 28; index++) ID[index] = CROCKFORD.charCodeAt((RANDOM_POOL[randomOffset++] ?? 0) & 31);
  return ID.toString('latin1', 0, 28);
}

const SANE_CORRELATION_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** The client's X-Correlation-Id when it is sane (short, printable, no spaces), else the request id. */
export function correlationIdFor(header: string | string[] | undefined, requestId: string): string {
  return typeof header === 'string' && SANE_CORRELATION_ID.test(header) ? header : requestId;
}
