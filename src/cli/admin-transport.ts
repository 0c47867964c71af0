import { AdminService } from '../admin/admin-service.js';
import { runAdminOperation } from '../admin/admin-operations.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import { openStore, parseStoreLocation, StoreBusyError } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import { fieldOf } from '../validation/field-of.js';

/** Sends one admin operation (method, path with query, body) and returns the JSON answer. */
export interface AdminTransport {
  readonly description: string;
  call(method: string, path: string, body?: unknown): Promise<unknown>;
  close(): Promise<void>;
}

/** An answer in the spec's error format, from the API or from the same code run locally. */
export class AdminCallError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Talks to a running gateway's admin API. */
export function httpTransport(baseUrl: string, adminKey: string): AdminTransport {
  const origin = baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  return {
    description: `admin API at ${origin}`,
    async call(method, path, body) {
      const response = await fetch(`${origin}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${adminKey}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).catch((error: unknown) => {
        throw new AdminCallError(
          0,
          'unreachable',
          `cannot reach the gateway's admin API at ${origin}: ${String(fieldOf(error, 'cause') ?? error)}`,
        );
      });
      const value: unknown = await response.json().catch(() => ({}));
      // The URL the CLI tried goes with the gateway's answer: a 401 must say which gateway refused which key.
      if (!response.ok) {
        const code = fieldOf(fieldOf(value, 'error'), 'code');
        const message = fieldOf(fieldOf(value, 'error'), 'message');
        throw new AdminCallError(
          response.status,
          typeof code === 'string' ? code : 'error',
          `${method} ${origin}${path}: ${typeof message === 'string' ? message : `HTTP ${response.status}`}`,
        );
      }
      return value;
    },
    close: async () => undefined,
  };
}

/** Works on the store directly (PostgreSQL, or an embedded store no gateway holds). */
export function storeTransport(store: Store, budgetTimeZone?: string): AdminTransport {
  const service = new AdminService(store, undefined, undefined, undefined, { timeZone: budgetTimeZone });
  return {
    description: store.description,
    async call(method, path, body) {
      try {
        return await runAdminOperation(service, method, path, body);
      } catch (error) {
        const status = fieldOf(error, 'status');
        const code = fieldOf(error, 'code');
        if (typeof status === 'number' && typeof code === 'string') {
          const message = fieldOf(error, 'message');
          throw new AdminCallError(status, code, typeof message === 'string' ? message : code);
        }
        throw error;
      }
    },
    close: () => store.close(),
  };
}

export interface TransportChoice {
  readonly config: GatewayConfig;
  /** --store: overrides the configuration's store. */
  readonly store?: string;
  /** --url: a running gateway to go through. */
  readonly url?: string;
  readonly adminKey?: string;
}

/**
 * Picks how the CLI reaches the data: a gateway's admin API when --url is given or when
 * the configuration's embedded store is held by its running gateway (PGlite is
 * single-process), else the store itself. With --store the CLI works on that store or
 * refuses: it never guesses which gateway holds it. PostgreSQL is always used directly;
 * running gateways learn of the change through LISTEN/NOTIFY.
 */
export async function openTransport(choice: TransportChoice): Promise<AdminTransport> {
  const adminKey = choice.adminKey ?? choice.config.adminKey;
  if (choice.url !== undefined) {
    if (adminKey === undefined)
      throw new Error(
        '--url needs the admin key: --admin-key, $SWITCHYARD_ADMIN_KEY or admin_key in the configuration',
      );
    return httpTransport(choice.url, adminKey);
  }
  try {
    return storeTransport(
      await openStore(parseStoreLocation(choice.store ?? choice.config.store)),
      choice.config.budgetWindows.timeZone,
    );
  } catch (error) {
    if (!(error instanceof StoreBusyError)) throw error;
    if (choice.store !== undefined) {
      throw new StoreBusyError(
        error.dataDir,
        error.pid,
        '--store works on a store no gateway holds; go through the gateway that holds it with --url URL --admin-key KEY',
      );
    }
    if (adminKey === undefined) {
      throw new StoreBusyError(
        error.dataDir,
        error.pid,
        "set admin_key in the configuration (or --admin-key) so the CLI can go through that gateway's admin API",
      );
    }
    const { host, port } = choice.config.listen;
    const address = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
    return httpTransport(`http://${address}:${port}`, adminKey);
  }
}
