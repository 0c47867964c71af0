import type { AccountCache } from './billing/account-cache.js';
import type { Billing } from './billing/billing.js';
import type { ConfigurationSnapshot } from './configuration-snapshot.js';
import type { ReadinessChecks } from './lifecycle/readiness-checks.js';
import type { ShutdownHooks } from './lifecycle/shutdown-hooks.js';
import type { GatewayMetrics } from './observability/metrics.js';
import type { NodeRegistry } from './routing/node-registry.js';
import type { RouteTable } from './routing/route-table.js';
import type { Store } from './store/store.js';
import type { ResponseStore } from './responses-state/response-store.js';
import type { UsageLedger } from './billing/usage-ledger.js';
import type { RequestLogWriter } from './request-log/request-log-writer.js';
import type { Tracing } from './telemetry/tracing.js';

/**
 * What the routes need. Built at start and kept for the process's life, except `snapshot`:
 * what a configuration decides, replaced whole in one assignment on reload (SIGHUP) or a
 * runtime node change. A request reads it once (`RequestContext.snapshot`), never here.
 */
export interface GatewayServices {
  /** The configuration now; a request reads its own copy of the reference, taken at its start. */
  snapshot: ConfigurationSnapshot;
  /** Model → nodes, configuration plus runtime additions: the live table (admin API); requests read `snapshot.routes`. */
  readonly routes: RouteTable;
  readonly nodes: NodeRegistry;
  readonly store: Store;
  /** Stored responses of the Responses API, per account, with retention and a size cap (any store backend). */
  readonly responses: ResponseStore;
  /** Keys and accounts in memory, kept in step with the store. */
  readonly accounts: AccountCache;
  readonly billing: Billing;
  readonly usage: UsageLedger;
  /** Named dependency checks behind GET /readyz and `switchyard_dependency_up`; register store/Redis pings here. */
  readonly readiness: ReadinessChecks;
  /** Run once at shutdown after in-flight requests ended (flush usage rows, close stores). */
  readonly shutdownHooks: ShutdownHooks;
  /** The request record's writer (PRODUCT decision 28); undefined when `request_log.enabled` is off. */
  readonly requestRecords: RequestLogWriter | undefined;
  /** Prometheus metrics; `metrics.recordCost(model, usd)` books cost. */
  readonly metrics: GatewayMetrics;
  /** OpenTelemetry traces; undefined when off (no OTLP endpoint), and then nothing on the request path reads them. */
  readonly tracing: Tracing | undefined;
}
