import type { ResponseRow, ResponseRows } from '../response-rows.js';
import type { SqlQueryable } from './sql-driver.js';

const COLUMNS = `id, account_id, model, node, previous_response_id, response, input_items,
  extract(epoch FROM created_at) * 1000 AS created_at_ms, extract(epoch FROM expires_at) * 1000 AS expires_at_ms`;

interface Row {
  id: string;
  account_id: string;
  model: string;
  node: string | null;
  previous_response_id: string | null;
  response: string;
  input_items: string;
  created_at_ms: unknown;
  expires_at_ms: unknown;
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
    responseJson: row.response,
    inputItemsJson: row.input_items,
  };
}

/** The `responses` table (migration 7). "Expired" is the database's clock, as every instance sees it. */
export class SqlResponseRows implements ResponseRows {
  constructor(private readonly db: SqlQueryable) {}

  async put(row: ResponseRow): Promise<void> {
    await this.db.query(
      `INSERT INTO responses (id, account_id, created_at, expires_at, model, node, previous_response_id, response, input_items)
       VALUES ($1, $2, to_timestamp($3::double precision / 1000), to_timestamp($4::double precision / 1000), $5, $6, $7, $8, $9)
       ON CONFLICT (id) DO UPDATE SET
         account_id = EXCLUDED.account_id, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at,
         model = EXCLUDED.model, node = EXCLUDED.node, previous_response_id = EXCLUDED.previous_response_id,
         response = EXCLUDED.response, input_items = EXCLUDED.input_items`,
      [
        row.id,
        row.accountId,
        row.createdAtMs,
        row.expiresAtMs,
        row.model,
        row.node,
        row.previousResponseId,
        row.responseJson,
        row.inputItemsJson,
      ],
    );
  }

  async get(accountId: string, id: string): Promise<ResponseRow | undefined> {
    const [row] = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM responses WHERE id = $1 AND account_id = $2 AND expires_at > now()`,
      [id, accountId],
    );
    return row === undefined ? undefined : rowOf(row);
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    const rows = await this.db.query(
      'DELETE FROM responses WHERE id = $1 AND account_id = $2 AND expires_at > now() RETURNING id',
      [id, accountId],
    );
    return rows.length > 0;
  }

  async sweep(limit: number): Promise<number> {
    const rows = await this.db.query(
      `DELETE FROM responses WHERE id IN (SELECT id FROM responses WHERE expires_at <= now() LIMIT $1) RETURNING id`,
      [limit],
    );
    return rows.length;
  }
}
