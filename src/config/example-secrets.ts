/** The demo's API key, printed at its start; the demo listens on 127.0.0.1 only. */
export const DEMO_API_KEY = 'sk-switchyard-demo-0000000000000000';

/** The demo's admin key (for /console and /admin/v1) unless $SWITCHYARD_ADMIN_KEY gives one; as public as the demo key. */
export const DEMO_ADMIN_KEY = 'switchyard-demo-admin-0000000000';

/**
 * Secrets printed in the documentation and the README: public, so refused as an API key
 * or admin key of any configuration but the built-in demo's own (issue 28 finding 5: an
 * attacker found the example admin key from docs/keys-and-money.md on a gateway).
 * `test/docs/example-secrets.test.ts` checks every literal key in the docs is listed here.
 */
const DOCUMENTED_SECRETS: ReadonlySet<string> = new Set([DEMO_API_KEY, DEMO_ADMIN_KEY, 'change-me-to-a-long-secret']);

/** The secrets the built-in demo itself may use. */
const DEMO_SECRETS: ReadonlySet<string> = new Set([DEMO_API_KEY, DEMO_ADMIN_KEY]);

/** Whether `secret` is printed in the documentation (and so is no secret), unless the demo uses its own. */
export function isDocumentedSecret(secret: string, demo: boolean): boolean {
  return DOCUMENTED_SECRETS.has(secret) && !(demo && DEMO_SECRETS.has(secret));
}
