import { parseArgs } from 'node:util';
import { demoConfig } from '../config/demo-config.js';
import { loadConfigFile } from '../config/load-config.js';
import { AdminCallError, openTransport, type AdminTransport } from './admin-transport.js';
import { CliUsageError } from './cli-usage-error.js';
import { formatRecord, formatTable } from './format-table.js';
import { planRequests } from './request-commands.js';
import { recordOf, recordsOf } from './reply-fields.js';

const OPTIONS = {
  config: { type: 'string', short: 'c' },
  store: { type: 'string' },
  url: { type: 'string' },
  'admin-key': { type: 'string' },
  json: { type: 'boolean' },
  balance: { type: 'string' },
  name: { type: 'string' },
  models: { type: 'string' },
  reason: { type: 'string' },
  streaming: { type: 'string' },
  'max-effort': { type: 'string' },
  rpm: { type: 'string' },
  rps: { type: 'string' },
  tpm: { type: 'string' },
  account: { type: 'string' },
  'spend-limit': { type: 'string' },
  budgets: { type: 'string' },
  'end-user-budgets': { type: 'string' },
  prefix: { type: 'string' },
  all: { type: 'boolean' },
  key: { type: 'string' },
  model: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  limit: { type: 'string' },
  status: { type: 'string' },
  'error-code': { type: 'string' },
  'end-user': { type: 'string' },
  node: { type: 'string' },
  door: { type: 'string' },
  since: { type: 'string' },
  cursor: { type: 'string' },
  bodies: { type: 'string' },
  'expires-at': { type: 'string' },
  'expires-in': { type: 'string' },
  grace: { type: 'string' },
  'group-by': { type: 'string' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

function usd(text: string | undefined, what: string): number {
  const value = Number(text);
  if (text === undefined || text.trim() === '' || !Number.isFinite(value))
    throw new CliUsageError(`${what} must be a number of USD, got "${text ?? ''}"`);
  return value;
}

function integer(text: string | undefined, what: string): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value)) throw new CliUsageError(`--${what} must be an integer, got "${text}"`);
  return value;
}

function models(text: string | undefined): string[] | null | undefined {
  if (text === undefined) return undefined;
  return text === 'all'
    ? null
    : text
        .split(',')
        .map((model) => model.trim())
        .filter((model) => model !== '');
}

function limits(values: Values) {
  const rpm = integer(values.rpm, 'rpm');
  const rps = integer(values.rps, 'rps');
  const tpm = integer(values.tpm, 'tpm');
  if (rpm === undefined && rps === undefined && tpm === undefined) return undefined;
  return {
    ...(rpm === undefined ? {} : { rpm }),
    ...(rps === undefined ? {} : { rps }),
    ...(tpm === undefined ? {} : { tpm }),
  };
}

function policy(values: Values) {
  const streaming =
    values.streaming === undefined
      ? undefined
      : values.streaming === 'on'
        ? true
        : values.streaming === 'off'
          ? false
          : null;
  if (streaming === null) throw new CliUsageError('--streaming must be on or off');
  const effort = values['max-effort'];
  if (streaming === undefined && effort === undefined) return undefined;
  return {
    ...(streaming === undefined ? {} : { streaming }),
    ...(effort === undefined ? {} : { max_reasoning_effort: effort }),
  };
}

/** `--bodies on|off`: the `request_log` setting of an account or key (off clears it). */
function requestLog(values: Values) {
  if (values.bodies === undefined) return undefined;
  if (values.bodies === 'on') return { bodies: true };
  if (values.bodies === 'off') return null;
  throw new CliUsageError('--bodies must be on or off');
}

/** `--budgets 200/month,10/day` → `[{ limit: 200, period: 'month' }, …]`; `none` removes them. */
function budgets(text: string | undefined, what: string) {
  if (text === undefined) return undefined;
  if (text === 'none') return null;
  return text.split(',').map((part) => {
    const match = /^\s*([0-9.]+)\s*\/\s*(day|week|month)\s*$/.exec(part);
    if (match === null)
      throw new CliUsageError(`${what} takes LIMIT/PERIOD pairs such as 200/month,10/day, got "${part}"`);
    return { limit: usd(match[1], what), period: match[2] };
  });
}

const END_USER_WINDOW_COLUMNS = ['end_user', 'period', 'spent', 'limit', 'reserved', 'remaining', 'resets_at'];

/** One row per end user and window (`keys end-users`), the highest spenders first as the API lists them. */
function endUserWindowRows(value: unknown): Array<Record<string, unknown>> {
  return recordsOf(recordOf(value).data).flatMap((user) =>
    recordsOf(user.windows).map((window) => ({ end_user: user.end_user, ...window })),
  );
}

/** Each budget's window in one line: `month: 12.5 of 200 USD spent, 0.1 reserved, 187.4 remaining, resets 2026-12-01T00:00:00.000Z`. */
function withBudgetLines(value: unknown): Record<string, unknown> {
  const owner = recordOf(value);
  const shown: Record<string, unknown> = { ...owner };
  if (Array.isArray(owner.budgets))
    shown.budgets =
      owner.budgets.length === 0
        ? null
        : recordsOf(owner.budgets)
            .map(
              (window) =>
                `${window.period}: ${window.spent} of ${window.limit} USD spent, ${window.reserved} reserved, ${window.remaining} remaining, resets ${window.resets_at}`,
            )
            .join('; ');
  if (Array.isArray(owner.end_user_budgets))
    shown.end_user_budgets = recordsOf(owner.end_user_budgets)
      .map((budget) => `${budget.limit} USD a ${budget.period} per end user`)
      .join('; ');
  return shown;
}

const DURATION = /^(\d+)\s*(s|m|h|d)?$/;
const SECONDS_PER_UNIT = { s: 1, m: 60, h: 3600, d: 86_400 } as const;

/** `90`, `90s`, `15m`, `1h`, `7d` → seconds. */
function duration(text: string, what: string): number {
  const match = DURATION.exec(text.trim());
  if (match === null) throw new CliUsageError(`${what} must be a duration such as 90s, 15m, 1h or 7d, got "${text}"`);
  return Number(match[1]) * SECONDS_PER_UNIT[(match[2] ?? 's') as keyof typeof SECONDS_PER_UNIT];
}

/** `--expires-at TIME|never` or `--expires-in DURATION` → the body's `expires_at` (undefined: neither given). */
function expiresAt(values: Values, now = Date.now()): string | null | undefined {
  const at = values['expires-at'];
  const inside = values['expires-in'];
  if (at !== undefined && inside !== undefined) throw new CliUsageError('give --expires-at or --expires-in, not both');
  if (at !== undefined) return at === 'never' ? null : at;
  if (inside === undefined) return undefined;
  return new Date(now + duration(inside, '--expires-in') * 1000).toISOString();
}

/** Drops undefined fields so the body carries only what was asked for. */
function defined(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
}

/** A query string of the parameters that are set. */
function queryOf(parameters: Record<string, string | undefined>): URLSearchParams {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters)) if (value !== undefined) query.set(name, value);
  return query;
}

function required(value: string | undefined, what: string): string {
  if (value === undefined || value === '') throw new CliUsageError(`missing ${what}`);
  return value;
}

const ACCOUNT_FIELDS = [
  'id',
  'name',
  'balance',
  'reserved',
  'remaining',
  'budgets',
  'allowed_models',
  'limits',
  'policy',
  'request_log',
  'created_at',
];
const KEY_COLUMNS = [
  'id',
  'prefix',
  'account',
  'name',
  'status',
  'spend_limit',
  'spent',
  'remaining',
  'last_used_at',
  'source',
  'status_reason',
  'expires_at',
];
const KEY_FIELDS = [
  ...KEY_COLUMNS,
  'previous_prefix',
  'previous_expires_at',
  'reserved',
  'budgets',
  'end_user_budgets',
  'limits',
  'allowed_models',
  'policy',
  'request_log',
  'created_at',
];
const USAGE_COLUMNS = [
  'created_at',
  'request_id',
  'key',
  'end_user',
  'model',
  'node',
  'status',
  'prompt_tokens',
  'completion_tokens',
  'reasoning_tokens',
  'cost',
  'estimated',
];

const END_USER_COLUMNS = ['end_user', 'requests', 'prompt_tokens', 'completion_tokens', 'cost'];

type Printer = (value: unknown) => string;
const list =
  (columns: readonly string[]): Printer =>
  (value) =>
    formatTable(recordsOf(recordOf(value).data), columns);
const record =
  (fields: readonly string[]): Printer =>
  (value) =>
    formatRecord(withBudgetLines(value), fields);

/** One CLI command as an admin call plus how to print its answer for people. */
function plan(
  group: string,
  args: string[],
  values: Values,
): { method: string; path: string; body?: unknown; print: Printer } {
  const [action, first, second] = args;
  const id = () => encodeURIComponent(required(first, group === 'keys' ? 'KEY (id or prefix)' : 'account ID'));
  if (group === 'accounts') {
    switch (action) {
      case 'create':
        return {
          method: 'POST',
          path: '/admin/v1/accounts',
          body: defined({
            id: required(first, 'account ID'),
            name: values.name,
            balance: values.balance === undefined ? undefined : usd(values.balance, '--balance'),
            allowed_models: models(values.models),
            budgets: budgets(values.budgets, '--budgets'),
          }),
          print: record(ACCOUNT_FIELDS),
        };
      case 'list':
        return {
          method: 'GET',
          path: '/admin/v1/accounts',
          print: list(['id', 'name', 'balance', 'reserved', 'remaining', 'allowed_models']),
        };
      case 'show':
        return {
          method: 'GET',
          path: `/admin/v1/accounts/${id()}`,
          print: (value) => {
            const account = recordOf(value);
            return [
              formatRecord(withBudgetLines(account), ACCOUNT_FIELDS),
              '',
              'Keys:',
              formatTable(recordsOf(account.keys), KEY_COLUMNS),
              '',
              'Balance ledger (latest first):',
              formatTable(recordsOf(account.ledger), ['created_at', 'kind', 'amount', 'balance_after', 'reason']),
            ].join('\n');
          },
        };
      case 'ledger':
        return {
          method: 'GET',
          path: `/admin/v1/accounts/${id()}/ledger`,
          print: list(['id', 'created_at', 'kind', 'amount', 'balance_after', 'reason']),
        };
      case 'topup':
      case 'adjust':
        return {
          method: 'POST',
          path: `/admin/v1/accounts/${id()}/${action}`,
          body: { amount: usd(second, 'the amount'), reason: required(values.reason, '--reason') },
          print: record(ACCOUNT_FIELDS),
        };
      case 'set':
        return {
          method: 'PATCH',
          path: `/admin/v1/accounts/${id()}`,
          body: defined({
            name: values.name,
            allowed_models: models(values.models),
            limits: limits(values),
            policy: policy(values),
            request_log: requestLog(values),
            budgets: budgets(values.budgets, '--budgets'),
          }),
          print: record(ACCOUNT_FIELDS),
        };
    }
  }
  if (group === 'keys') {
    switch (action) {
      case 'create':
        return {
          method: 'POST',
          path: '/admin/v1/keys',
          body: defined({
            account: required(values.account, '--account'),
            name: values.name,
            spend_limit: values['spend-limit'] === undefined ? undefined : usd(values['spend-limit'], '--spend-limit'),
            allowed_models: models(values.models),
            limits: limits(values),
            policy: policy(values),
            budgets: budgets(values.budgets, '--budgets'),
            end_user_budgets: budgets(values['end-user-budgets'], '--end-user-budgets'),
            expires_at: expiresAt(values),
          }),
          print: (value) =>
            `${formatRecord(withBudgetLines(value), ['key', ...KEY_FIELDS])}\n\nThe key is shown once: store it now.`,
        };
      case 'rotate':
        return {
          method: 'POST',
          path: `/admin/v1/keys/${id()}/rotate`,
          body: defined({ grace_seconds: values.grace === undefined ? undefined : duration(values.grace, '--grace') }),
          print: (value) => {
            const key = recordOf(value);
            return `${formatRecord(key, ['key', ...KEY_FIELDS])}\n\nThe new key is shown once: store it now. The old one works until ${String(key.previous_expires_at)}.`;
          },
        };
      case 'list': {
        const query = queryOf({
          prefix: values.prefix,
          account: values.account,
          include_deleted: values.all ? 'true' : undefined,
        });
        return { method: 'GET', path: `/admin/v1/keys?${query}`, print: list(KEY_COLUMNS) };
      }
      case 'show':
        return { method: 'GET', path: `/admin/v1/keys/${id()}`, print: record(KEY_FIELDS) };
      case 'end-users': {
        const query = queryOf({ limit: values.limit });
        return {
          method: 'GET',
          path: `/admin/v1/keys/${id()}/end-users?${query}`,
          print: (value) => formatTable(endUserWindowRows(value), END_USER_WINDOW_COLUMNS),
        };
      }
      case 'block':
      case 'unblock':
      case 'revoke':
        return { method: 'POST', path: `/admin/v1/keys/${id()}/${action}`, print: record(KEY_FIELDS) };
      case 'delete':
        return { method: 'DELETE', path: `/admin/v1/keys/${id()}`, print: record(KEY_FIELDS) };
      case 'set': {
        const limit = values['spend-limit'];
        return {
          method: 'PATCH',
          path: `/admin/v1/keys/${id()}`,
          body: defined({
            name: values.name,
            spend_limit: limit === undefined ? undefined : limit === 'none' ? null : usd(limit, '--spend-limit'),
            allowed_models: models(values.models),
            limits: limits(values),
            policy: policy(values),
            request_log: requestLog(values),
            budgets: budgets(values.budgets, '--budgets'),
            end_user_budgets: budgets(values['end-user-budgets'], '--end-user-budgets'),
            expires_at: expiresAt(values),
          }),
          print: record(KEY_FIELDS),
        };
      }
    }
  }
  if (group === 'usage') {
    const query = queryOf({
      key: values.key,
      end_user: values['end-user'],
      group_by: values['group-by'],
      account: values.account,
      model: values.model,
      from: values.from,
      to: values.to,
      limit: values.limit,
    });
    return {
      method: 'GET',
      path: `/admin/v1/usage?${query}`,
      print: (value) => {
        const report = recordOf(value);
        const perUser =
          report.end_users === undefined
            ? ''
            : `\n\nPer end user (highest cost first):\n${formatTable(recordsOf(report.end_users), END_USER_COLUMNS)}`;
        return `${formatTable(recordsOf(report.data), USAGE_COLUMNS)}${perUser}\n\nTotals: ${Object.entries(
          recordOf(report.totals),
        )
          .filter(([name]) => name !== 'cost_nano')
          .map(([name, total]) => `${name} ${total}`)
          .join(', ')}`;
      },
    };
  }
  if (group === 'requests') return planRequests(args, values);
  throw new CliUsageError(`unknown command "${[group, action].filter(Boolean).join(' ')}"`);
}

/** `switchyard keys|accounts|usage|requests …`: exit 0 with the answer on stdout, 1 with the error on stderr. */
export async function runAdminCommand(group: string, argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
  const call = plan(group, positionals, values);
  const file = values.config ?? (process.env.SWITCHYARD_CONFIG || undefined);
  const config = file === undefined ? demoConfig() : loadConfigFile(file);
  let transport: AdminTransport | undefined;
  try {
    transport = await openTransport({
      config,
      store: values.store,
      url: values.url ?? (process.env.SWITCHYARD_URL || undefined),
      adminKey: values['admin-key'] ?? (process.env.SWITCHYARD_ADMIN_KEY || undefined),
    });
    const answer = await transport.call(call.method, call.path, call.body);
    process.stdout.write(`${values.json ? JSON.stringify(answer, null, 2) : call.print(answer)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof AdminCallError) {
      process.stderr.write(
        `switchyard: ${error.message}${error.status === 0 ? '' : ` (${error.code}, HTTP ${error.status})`}\n`,
      );
      return 1;
    }
    throw error;
  } finally {
    await transport?.close();
  }
}
