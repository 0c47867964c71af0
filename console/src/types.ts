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

export interface AccountView {
  id: string;
  name: string | null;
  balance: number;
  reserved: number;
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

export interface KeyView {
  id: string;
  prefix: string;
  account: string | null;
  name: string | null;
  status: string;
  spend_limit: number | null;
  spent: number;
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
