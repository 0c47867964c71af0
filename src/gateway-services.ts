import type { AccountCache } from './billing/account-cache.js';
import type { Billing } from './billing/billing.js';
import type { GatewayConfig } from './config/gateway-config.js';
import type { ModelCatalog } from './config/model-catalog.js';
import type { ReadinessChecks } from './lifecycle/readiness-checks.js';
import type { ShutdownHooks } from './lifecycle/shutdown-hooks.js';
import type { GatewayMetrics } from './observability/metrics.js';
import type { NodeRegistry } from './routing/node-registry.js';
import type { RouteTable } from './routing/route-table.js';
import type { Router } from './routing/router.js';
import type { Store } from './store/store.js';
import type { ResponseStore } from './responses-state/response-store.js';
import type { UsageLedger } from './billing/usage-ledger.js';
import type { RateLimiter } from './limits/rate-limiter.js';
import type { BlockList } from 'node:net';
import type { RequestLogWriter } from './request-log/request-log-writer.js';
import type { Tracing } from './telemetry/tracing.js';

/**
 * What the routes need. Built at start; `config` and `models` are
 * swapped together when the configuration is reloaded (SIGHUP), so handlers read them
 * through this object at every request instead of keeping copies.
 */
export interface GatewayServices {
  config: GatewayConfig;
  /** The models by id, and by the aliases clients may send (`resolve`). */
  models: ModelCatalog;
  readonly router: Router;
  /** Model → nodes, configuration plus runtime additions. */
  readonly routes: RouteTable;
  readonly nodes: NodeRegistry;
  readonly store: Store;
  /** Stored responses of the Responses API, per account, with retention and a size cap (any store backend). */
  readonly responses: ResponseStore;
  /** Keys and accounts in memory, kept in step with the store. */
  readonly accounts: AccountCache;
  readonly billing: Billing;
  readonly usage: UsageLedger;
  /** Replaced on reload when the limit settings change. */
  limiter: RateLimiter;
  /** Undefined when no proxy is trusted. */
  trustedProxies: BlockList | undefined;
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
