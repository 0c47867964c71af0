/** The prefix of every reasoning artifact Switchyard mints (inbound-protocols 3.8). */
export const ENVELOPE_PREFIX = 'swy1.';

/**
 * True for a value shaped like a Switchyard envelope (a thinking signature or redacted
 * data the gateway made for another node's reasoning), genuine or not: such a value is never
 * sent to Anthropic (rule A16), and never taken for a native signature.
 */
export function isEnvelope(value: unknown): boolean {
  return typeof value === 'string' && value.slice(0, ENVELOPE_PREFIX.length) === ENVELOPE_PREFIX;
}
