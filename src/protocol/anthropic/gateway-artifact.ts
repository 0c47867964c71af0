/** The prefix of every reasoning artifact Switchyard mints (inbound-protocols 3.8): encrypted envelopes. */
export const ENVELOPE_PREFIX = 'swy2.';
/** The first envelopes, signed but readable: still known as the gateway's, never opened again. */
const SIGNED_ONLY_PREFIX = 'swy1.';

/**
 * True for a value shaped like a Switchyard envelope (a thinking signature or redacted
 * data the gateway made for another node's reasoning), genuine or not, of this version or
 * the first: such a value is never sent to Anthropic (rule A16), and never taken for a
 * native signature.
 */
export function isEnvelope(value: unknown): boolean {
  return typeof value === 'string' && (value.startsWith(ENVELOPE_PREFIX) || value.startsWith(SIGNED_ONLY_PREFIX));
}
