import type { ChainLimits, ResponseQuota, ResponseRow, ResponseRows, ResponseUsage } from '../response-rows.js';
import type { SqlQueryable } from './sql-driver.js';

const COLUMNS = `id, account_id, model, node, previous_response_id, depth, item_ids, response, input_items,
  extract(epoch FROM created_at) * 1000 AS created_at_ms, extract(epoch FROM expires_at) * 1000 AS expires_at_ms`;

interface Row {
  id: string;
  account_id: string;
  model: string;
  node: string | null;
  previous_response_id: string | null;
  depth: number | null;
  item_ids: string[] | null;
  response: string;
  input_items: string;
  created_at_ms: unknown;
  expires_at_ms: unknown;
}

interface UsageRow {
  count: unknown;
  bytes: unknown;
}

function rowOf(row: Row): ResponseRow {
  return {
    id: row.id,
    accountId: row.account_id,
    createdAtMs: Math.round(Number(row.created_at_ms)),
    expiresAtMs: Math.round(Number(row.expires_at_ms)),
    model: row.model,
    node: row.node,
    previousResponseId: row.previous_response_id,
    depth: row.depth,
    itemIds: row.item_ids ?? [],
    responseJson: row.response,
    inputItemsJson: row.input_items,
  };
}

const usageOf = (row: UsageRow | undefined): ResponseUsage => ({
  count: Number(row?.count ?? 0),
  bytes: Number(row?.bytes ?? 0),
});

/**
 * The `responses` table (migrations 7, 8), keyed by (account_id, id). "Expired" is the
 * database's clock, as every instance sees it. The quota of `put` is checked in the same
 * statement as the insert; saves of one account racing on several connections may each
 * find room, so an account can end over its quota by the saves in flight.
 */
export class SqlResponseRows implements ResponseRows {
  constructor(private readonly db: SqlQueryable) {}

  async put(row: ResponseRow, quota: ResponseQuota): Promise<{ stored: boolean; usage: ResponseUsage }> {
    const [result] = await this.db.query<UsageRow & { stored: unknown; row_bytes: unknown }>(
      `WITH used AS (
         SELECT count(*) AS count, coalesce(sum(bytes), 0) AS bytes FROM responses
         WHERE account_id = $2 AND id <> $1 AND expires_at > now()
       ), saved AS (
         INSERT INTO responses (id, account_id, created_at, expires_at, model, node, previous_response_id, depth, item_ids, response, input_items)
         SELECT $1, $2, to_timestamp($3::double precision / 1000), to_timestamp($4::double precision / 1000), $5, $6, $7, $8, $9::text[], $10, $11
         FROM used WHERE used.count < $12 AND used.bytes < $13
         ON CONFLICT (account_id, id) DO UPDATE SET
           created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at,
           model = EXCLUDED.model, node = EXCLUDED.node, previous_response_id = EXCLUDED.previous_response_id,
           depth = EXCLUDED.depth, item_ids = EXCLUDED.item_ids,
           response = EXCLUDED.response, input_items = EXCLUDED.input_items
         RETURNING bytes
       )
       SELECT used.count, used.bytes, (SELECT count(*) FROM saved) AS stored, (SELECT sum(bytes) FROM saved) AS row_bytes
       FROM used`,
      [
        row.id,
        row.accountId,
        row.createdAtMs,
        row.expiresAtMs,
        row.model,
        row.node,
        row.previousResponseId,
        row.depth,
        row.itemIds.length === 0 ? null : row.itemIds,
        row.responseJson,
        row.inputItemsJson,
        quota.maxCount,
        quota.maxBytes,
      ],
    );
    const before = usageOf(result);
    const stored = Number(result?.stored ?? 0) > 0;
    return {
      stored,
      usage: stored ? { count: before.count + 1, bytes: before.bytes + Number(result?.row_bytes ?? 0) } : before,
    };
  }

  async get(accountId: string, id: string): Promise<ResponseRow | undefined> {
    const [row] = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM responses WHERE account_id = $1 AND id = $2 AND expires_at > now()`,
      [accountId, id],
    );
    return row === undefined ? undefined : rowOf(row);
  }

  async chain(accountId: string, id: string, limits: ChainLimits): Promise<ResponseRow[]> {
    const rows = await this.db.query<Row>(
      `WITH RECURSIVE chain AS (
         SELECT r.*, 1 AS n, r.bytes AS total, r.depth AS root_depth
         FROM responses r WHERE r.account_id = $1 AND r.id = $2 AND r.expires_at > now()
         UNION ALL
         SELECT p.*, c.n + 1, c.total + p.bytes, c.root_depth
         FROM chain c JOIN responses p ON p.account_id = c.account_id AND p.id = c.previous_response_id
         WHERE p.expires_at > now() AND c.n < $3 AND c.total <= $4 AND (c.root_depth IS NULL OR c.root_depth < $3)
       )
       SELECT ${COLUMNS} FROM chain ORDER BY n`,
      [accountId, id, limits.maxRows, limits.maxBytes],
    );
    return rows.map(rowOf);
  }

  async holdingItems(accountId: string, itemIds: readonly string[], limit: number): Promise<ResponseRow[]> {
    const rows = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM responses
       WHERE account_id = $1 AND item_ids IS NOT NULL AND item_ids && $2::text[] AND expires_at > now()
       LIMIT $3`,
      [accountId, itemIds, limit],
    );
    return rows.map(rowOf);
  }

  async usage(accountId: string): Promise<ResponseUsage> {
    const [row] = await this.db.query<UsageRow>(
      `SELECT count(*) AS count, coalesce(sum(bytes), 0) AS bytes FROM responses
       WHERE account_id = $1 AND expires_at > now()`,
      [accountId],
    );
    return usageOf(row);
  }

  async size(): Promise<ResponseUsage> {
    const [row] = await this.db.query<UsageRow>(
      'SELECT count(*) AS count, coalesce(sum(bytes), 0) AS bytes FROM responses',
    );
    return usageOf(row);
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    const rows = await this.db.query(
      'DELETE FROM responses WHERE account_id = $1 AND id = $2 AND expires_at > now() RETURNING id',
      [accountId, id],
    );
    return rows.length > 0;
  }

  async sweep(limit: number): Promise<number> {
    const rows = await this.db.query(
      `DELETE FROM responses WHERE (account_id, id) IN
         (SELECT account_id, id FROM responses WHERE expires_at <= now() LIMIT $1) RETURNING id`,
      [limit],
    );
    return rows.length;
  }
}
