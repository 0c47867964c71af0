/** The admin API's answers, as the console reads them. */

export interface List<T> {
  data: T[];
}

export interface NodeView {
  id: string;
  provider: string;
  base_url: string;
  state: string;
  source: string;
  in_flight: number;
  max_concurrency: number;
  effective_max_concurrency: number;
  weight: number;
  error_rate: number;
  latency_ms: number | null;
  cooldown_ms: number;
}

export interface ModelView {
  id: string;
  context_length: number | null;
  max_output_tokens: number | null;
  pricing: {
    input: number;
    output: number;
    cached_input: number | null;
    cache_write: number | null;
    cache_write_1h: number | null;
    reasoning: number | null;
  } | null;
  reasoning: { default_effort: string; efforts: string[]; style: string } | null;
  routes: Array<{ node: string; upstream_model: string; weight: number; priority: number }>;
}

/** The current window of one budget that resets (admin API `budgets`). */
export interface BudgetWindowView {
  period: 'day' | 'week' | 'month';
  limit: number;
  spent: number;
  reserved: number;
  remaining: number;
  window_start: string;
  resets_at: string;
}

export interface AccountView {
  id: string;
  name: string | null;
  balance: number;
  reserved: number;
  remaining: number;
  budgets: BudgetWindowView[];
  allowed_models: string[] | null;
  created_at: string;
}

export interface LedgerEntry {
  id: number;
  kind: string;
  amount: number;
  balance_after: number;
  reason: string;
  created_at: string;
}

/** One end user of a key with its windows of the key's end-user budgets. */
export interface EndUserWindowsView {
  end_user: string;
  windows: BudgetWindowView[];
}

export interface KeyView {
  id: string;
  prefix: string;
  account: string | null;
  name: string | null;
  status: string;
  spend_limit: number | null;
  spent: number;
  remaining: number | null;
  budgets: BudgetWindowView[];
  /** The budget each end user of the key has (its windows: GET /keys/{id}/end-users). */
  end_user_budgets: Array<{ period: BudgetWindowView['period']; limit: number }> | null;
  created_at: string;
  last_used_at: string | null;
  source: string;
  expires_at: string | null;
  previous_prefix: string | null;
  previous_expires_at: string | null;
}

export interface UsageRowView {
  request_id: string;
  correlation_id: string;
  key: string;
  account: string | null;
  model: string;
  node: string | null;
  attempts: number;
  prompt_tokens: number;
  completion_tokens: number;
  reasoning_tokens: number;
  cached_tokens: number;
  cache_write_tokens: number;
  cost: number;
  estimated: boolean;
  status: number;
  error_code: string | null;
  latency_ms: number;
  first_byte_ms: number | null;
  stream: boolean;
  finish_reason: string | null;
  created_at: string;
  [field: string]: unknown;
}

export interface UsageTotalsView {
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  reasoning_tokens: number;
  cost: number;
}

export interface EndUserTotals extends UsageTotalsView {
  end_user: string | null;
}

export interface UsageReport {
  data: UsageRowView[];
  totals: UsageTotalsView;
  /** With `group_by=end_user`. */
  end_users?: EndUserTotals[];
}

export interface StatsBucket {
  start: string;
  group: string | null;
  requests: number;
  errors: number;
  error_rate: number;
  latency_p50_ms: number;
  latency_p95_ms: number;
  total_tokens: number;
  cost: number;
}

export interface UsageStats {
  range: string;
  bucket_seconds: number;
  from: string;
  to: string;
  group_by: string | null;
  data: StatsBucket[];
}

/** One node attempt of a request: times in ms (`started_ms` from the request's arrival, the others from the attempt's start). */
export interface RequestAttemptView {
  node: string;
  status: number | null;
  error_code: string | null;
  started_ms: number | null;
  first_byte_ms: number | null;
  total_ms: number | null;
}

/** One request of the request record (GET /admin/v1/requests). */
export interface RequestRecordView {
  id: string;
  correlation_id: string | null;
  time: string;
  door: string;
  method: string | null;
  path: string | null;
  status: number | null;
  error_code: string | null;
  key_id: string | null;
  key_prefix: string | null;
  account: string | null;
  end_user: string | null;
  model: string | null;
  model_served: string | null;
  node: string | null;
  affinity: string | null;
  stream: boolean | null;
  attempts: RequestAttemptView[];
  usage: {
    prompt_tokens: number;
    completion_tokens: number;
    cached_tokens: number | null;
    reasoning_tokens: number | null;
  } | null;
  cost_usd: number | null;
  first_byte_ms: number | null;
  total_ms: number | null;
  trace_id: string | null;
  /** Only on GET /admin/v1/requests/{id}, where bodies are kept. */
  request_body?: string | null;
  reply_body?: string | null;
}

export interface RequestPage {
  data: RequestRecordView[];
  next_cursor: string | null;
}

export interface RequestStatsBucket {
  start: string;
  requests: number;
  status_classes: Record<string, number>;
  error_codes: Record<string, number>;
  first_byte_ms_p50: number | null;
  first_byte_ms_p95: number | null;
}

/** GET /admin/v1/requests/stats: what clients got, per time bucket and in total. */
export interface RequestStats {
  buckets: RequestStatsBucket[];
  totals: { requests: number; errors: number; error_rate: number; error_codes: Record<string, number> };
}

/** Requests without a valid key, counted per client address and reason. */
export interface UnauthenticatedView {
  client_address: string;
  reason: string;
  count: number;
  first_seen: string;
  last_seen: string;
}
