/**
 * The schema, as numbered migrations applied in order at start, each once, in its own
 * transaction. Shared by PGlite and PostgreSQL. Never edit a released migration: add one.
 */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'accounts, keys, models, balance and usage ledgers',
    sql: `
      CREATE TABLE accounts (
        id              text PRIMARY KEY,
        name            text,
        balance_nano    bigint NOT NULL DEFAULT 0,
        allowed_models  text[],
        limits          jsonb,
        policy          jsonb,
        created_at      timestamptz NOT NULL DEFAULT now(),
        updated_at      timestamptz NOT NULL DEFAULT now()
      );

      CREATE TABLE balance_ledger (
        id                  bigserial PRIMARY KEY,
        account_id          text NOT NULL REFERENCES accounts (id),
        kind                text NOT NULL CHECK (kind IN ('initial', 'topup', 'adjustment')),
        amount_nano         bigint NOT NULL,
        balance_after_nano  bigint NOT NULL,
        reason              text NOT NULL,
        created_at          timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX balance_ledger_account ON balance_ledger (account_id, id);

      CREATE TABLE api_keys (
        id                text PRIMARY KEY,
        hash              text NOT NULL UNIQUE,
        prefix            text NOT NULL,
        account_id        text REFERENCES accounts (id),
        name              text,
        status            text NOT NULL CHECK (status IN ('active', 'blocked', 'revoked', 'deleted')),
        spend_limit_nano  bigint,
        spent_nano        bigint NOT NULL DEFAULT 0,
        limits            jsonb,
        allowed_models    text[],
        policy            jsonb,
        created_at        timestamptz NOT NULL DEFAULT now(),
        updated_at        timestamptz NOT NULL DEFAULT now(),
        last_used_at      timestamptz
      );
      CREATE INDEX api_keys_prefix ON api_keys (prefix text_pattern_ops);
      CREATE INDEX api_keys_account ON api_keys (account_id);

      CREATE TABLE models (
        id                 text PRIMARY KEY,
        input_nano         bigint NOT NULL,
        output_nano        bigint NOT NULL,
        cached_input_nano  bigint,
        reasoning_nano     bigint,
        updated_at         timestamptz NOT NULL DEFAULT now()
      );

      CREATE TABLE usage_ledger (
        id                 bigserial PRIMARY KEY,
        request_id         text NOT NULL UNIQUE,
        correlation_id     text NOT NULL,
        key_id             text NOT NULL,
        account_id         text,
        model              text NOT NULL,
        node               text,
        attempts           integer NOT NULL,
        prompt_tokens      integer NOT NULL,
        completion_tokens  integer NOT NULL,
        reasoning_tokens   integer NOT NULL,
        cached_tokens      integer NOT NULL,
        cost_nano          bigint NOT NULL,
        estimated          boolean NOT NULL,
        status             integer NOT NULL,
        error_code         text,
        latency_ms         double precision NOT NULL,
        first_byte_ms      double precision,
        stream             boolean NOT NULL,
        finish_reason      text,
        created_at         timestamptz NOT NULL
      );
      CREATE INDEX usage_ledger_key ON usage_ledger (key_id, created_at);
      CREATE INDEX usage_ledger_account ON usage_ledger (account_id, created_at);
      CREATE INDEX usage_ledger_model ON usage_ledger (model, created_at);
      CREATE INDEX usage_ledger_created ON usage_ledger (created_at);
    `,
  },
  {
    version: 2,
    name: 'spend holds: budget each instance may spend without asking the store',
    sql: `
      CREATE TABLE spend_holds (
        holder       text NOT NULL,
        kind         text NOT NULL CHECK (kind IN ('key', 'account')),
        subject_id   text NOT NULL,
        amount_nano  bigint NOT NULL CHECK (amount_nano >= 0),
        expires_at   timestamptz NOT NULL,
        PRIMARY KEY (kind, subject_id, holder)
      );
      CREATE INDEX spend_holds_holder ON spend_holds (holder);
    `,
  },
  {
    version: 3,
    name: 'node states and live instances shared between gateway instances',
    sql: `
      CREATE TABLE node_states (
        node_id              text PRIMARY KEY,
        drained              boolean NOT NULL DEFAULT false,
        ejected_until        timestamptz,
        updated_at           timestamptz NOT NULL DEFAULT now(),
        updated_by_instance  text NOT NULL
      );

      CREATE TABLE gateway_instances (
        instance_id   text PRIMARY KEY,
        started_at    timestamptz NOT NULL DEFAULT now(),
        heartbeat_at  timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
  {
    version: 4,
    name: 'key ownership (configuration file or admin) and why a key is not active',
    // Keys declared in a file always got the id key_ + the first 16 hex digits of their
    // hash; keys made through the admin API get a random id. So the keys already in the
    // store whose id is derived from their hash came from a file; every other key is an
    // admin key, which no file ever touches. A file key's status followed its file at
    // every start and reload until now, so a blocked one was blocked by its file (an
    // operator's block lasted until the next reload). The reasons are those of
    // src/billing/next-file-key-state.ts.
    sql: `
      ALTER TABLE api_keys ADD COLUMN source text NOT NULL DEFAULT 'admin' CHECK (source IN ('config', 'admin'));
      ALTER TABLE api_keys ADD COLUMN status_reason text;
      UPDATE api_keys SET source = 'config' WHERE id = 'key_' || left(hash, 16);
      UPDATE api_keys SET status_reason = 'blocked in the configuration' WHERE source = 'config' AND status = 'blocked';
      UPDATE api_keys SET status_reason = 'revoked in the configuration' WHERE source = 'config' AND status = 'revoked';
      CREATE INDEX api_keys_source ON api_keys (source);
    `,
  },
  {
    version: 5,
    name: 'prompt-cache writes in the usage ledger (priced apart from reads and plain input)',
    // Rows booked before had no cache writes priced: 0 is what they were billed on.
    sql: `
      ALTER TABLE usage_ledger ADD COLUMN cache_write_tokens integer NOT NULL DEFAULT 0;
      ALTER TABLE usage_ledger ADD COLUMN cache_write_1h_tokens integer NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 6,
    name: 'the front door (client-facing protocol) of each usage row',
    // Every row booked before came through the only door there was.
    sql: `
      ALTER TABLE usage_ledger ADD COLUMN front_door text NOT NULL DEFAULT 'chat';
    `,
  },
  {
    version: 7,
    name: 'stored responses of the Responses API (previous_response_id, GET /v1/responses/{id})',
    // The Response object and the input items are kept as the JSON text the client got
    // (text, not jsonb: the same bytes come back, and a \u0000 escape in model output is
    // legal JSON that jsonb refuses). account_id is an account id or key:<key id>, so no
    // foreign key.
    sql: `
      CREATE TABLE responses (
        id                    text PRIMARY KEY,
        account_id            text NOT NULL,
        created_at            timestamptz NOT NULL,
        expires_at            timestamptz NOT NULL,
        model                 text NOT NULL,
        node                  text,
        previous_response_id  text,
        response              text NOT NULL,
        input_items           text NOT NULL
      );
      CREATE INDEX responses_expires ON responses (expires_at);
    `,
  },
  {
    version: 8,
    name: 'priced node features of each usage row (server-tool calls, service tier, betas)',
    // JSON text, null for a row that used none (every row booked before).
    sql: `
      ALTER TABLE usage_ledger ADD COLUMN features text;
    `,
  },
  {
    version: 9,
    name: 'stored responses: owned by (account, id), chain depth, size, and the node item ids they hold',
    // Two accounts may hold the same id (a native node's, which the gateway does not choose):
    // each keeps its own row. depth (responses in the chain up to this one) is unknown, NULL,
    // for rows saved before: their chains are walked. bytes is what the per-account quota
    // counts. item_ids: the ids of output items not in the gateway's own format (a native
    // node's), so an item_reference to one is found in its account's responses.
    sql: `
      ALTER TABLE responses DROP CONSTRAINT responses_pkey;
      ALTER TABLE responses ADD PRIMARY KEY (account_id, id);
      ALTER TABLE responses ADD COLUMN depth integer;
      ALTER TABLE responses ADD COLUMN bytes bigint GENERATED ALWAYS AS (octet_length(response) + octet_length(input_items)) STORED;
      ALTER TABLE responses ADD COLUMN item_ids text[];
      CREATE INDEX responses_item_ids ON responses USING gin (item_ids) WHERE item_ids IS NOT NULL;
    `,
  },
  {
    version: 12,
    name: 'the affinity outcome of each usage row (hit, spill, none)',
    // NULL for rows booked before affinity existed: their outcome is not known.
    sql: `
      ALTER TABLE usage_ledger ADD COLUMN affinity text;
    `,
  },
];
