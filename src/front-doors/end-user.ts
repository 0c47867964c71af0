import type { IncomingMessage } from 'node:http';

/** The longest end-user id kept (PRODUCT decision 27); a longer one is cut, never refused. */
export const MAX_END_USER_LENGTH = 128;

/** The header that names the end user whichever door the request came through; it wins over the body's fields. */
export const END_USER_HEADER = 'x-switchyard-user';

/**
 * The end user a request is for (PRODUCT decision 27): the `x-switchyard-user` header when
 * set, else the first of the door's own fields that is a non-empty string (chat and
 * Responses `user` then `safety_identifier`, Anthropic `metadata.user_id`), cut to 128
 * characters. Undefined when none names one.
 */
export function endUserOf(request: IncomingMessage, ...fields: readonly unknown[]): string | undefined {
  const header = request.headers[END_USER_HEADER];
  const named = typeof header === 'string' && header !== '' ? header : fields.find(isNonEmptyString);
  return named === undefined ? undefined : named.slice(0, MAX_END_USER_LENGTH);
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}
