import { holdKey, type HoldAmount, type HoldDemand, type HoldGrant, type SpendHoldStore } from '../spend-holds.js';
import type { SqlDriver, SqlQueryable } from './sql-driver.js';

/** The budget a subject has in all: a key's limit minus its spend, an account's balance. */
const BUDGET = {
  key: 'SELECT spend_limit_nano - spent_nano AS budget FROM api_keys WHERE id = $1 AND spend_limit_nano IS NOT NULL FOR UPDATE',
  account: 'SELECT balance_nano AS budget FROM accounts WHERE id = $1 FOR UPDATE',
} as const;

const num = (value: unknown): number => Number(value ?? 0);

/** Spend holds in the `spend_holds` table (migration 2) of a shared PostgreSQL store. */
export class SqlSpendHolds implements SpendHoldStore {
  constructor(
    private readonly db: SqlDriver,
    /** The NOTIFY channel of store changes, for `hold-wanted`. */
    private readonly channel: string,
  ) {}

  acquire(holder: string, demands: readonly HoldDemand[], ttlMs: number): Promise<HoldGrant[]> {
    // One lock order for every instance (accounts before keys, then by id): no deadlocks.
    const ordered = [...demands].sort((a, b) =>
      a.kind === b.kind ? (a.id < b.id ? -1 : 1) : a.kind === 'account' ? -1 : 1,
    );
    return this.db.transaction(async (tx) => {
      const grants: HoldGrant[] = [];
      for (const demand of ordered)
        grants.push({ kind: demand.kind, id: demand.id, ...(await this.grant(tx, holder, demand, ttlMs)) });
      return grants;
    });
  }

  private async grant(
    tx: SqlQueryable,
    holder: string,
    demand: HoldDemand,
    ttlMs: number,
  ): Promise<{ heldNano: number; contended: boolean }> {
    // The subject's row lock serializes every instance's grants on it (and usage batches).
    const [subject] = await tx.query<{ budget: unknown }>(BUDGET[demand.kind], [demand.id]);
    await tx.query('DELETE FROM spend_holds WHERE kind = $1 AND subject_id = $2 AND expires_at <= now()', [
      demand.kind,
      demand.id,
    ]);
    const [holds] = await tx.query<{ others: unknown; mine: unknown }>(
      `SELECT coalesce(sum(amount_nano) FILTER (WHERE holder <> $3), 0) AS others,
              coalesce(sum(amount_nano) FILTER (WHERE holder = $3), 0) AS mine
         FROM spend_holds WHERE kind = $1 AND subject_id = $2`,
      [demand.kind, demand.id, holder],
    );
    const mine = num(holds?.mine);
    const free = subject === undefined ? 0 : num(subject.budget) - num(holds?.others) - mine;
    const granted = Math.max(0, Math.min(demand.wantNano, free));
    const [row] = await tx.query<{ amount_nano: unknown }>(
      `INSERT INTO spend_holds (holder, kind, subject_id, amount_nano, expires_at)
       VALUES ($1, $2, $3, $4, now() + $5 * interval '1 millisecond')
       ON CONFLICT (kind, subject_id, holder) DO UPDATE
         SET amount_nano = spend_holds.amount_nano + EXCLUDED.amount_nano, expires_at = EXCLUDED.expires_at
       RETURNING amount_nano`,
      [holder, demand.kind, demand.id, granted, ttlMs],
    );
    const contended = granted < demand.wantNano && num(holds?.others) > 0;
    if (contended)
      await tx.query('SELECT pg_notify($1, $2)', [
        this.channel,
        JSON.stringify({ kind: 'hold-wanted', id: holdKey(demand), holder }),
      ]);
    return { heldNano: num(row?.amount_nano), contended };
  }

  async renew(holder: string, ttlMs: number): Promise<HoldAmount[]> {
    const rows = await this.db.query<{ kind: 'key' | 'account'; subject_id: string; amount_nano: unknown }>(
      `UPDATE spend_holds SET expires_at = now() + $2 * interval '1 millisecond'
        WHERE holder = $1 AND expires_at > now() RETURNING kind, subject_id, amount_nano`,
      [holder, ttlMs],
    );
    return rows.map((row) => ({ kind: row.kind, id: row.subject_id, heldNano: num(row.amount_nano) }));
  }

  async shrink(holder: string, targets: readonly HoldAmount[]): Promise<HoldAmount[]> {
    if (targets.length === 0) return [];
    const input = JSON.stringify(
      targets.map((target) => ({ kind: target.kind, subject_id: target.id, keep: target.heldNano })),
    );
    return this.db.transaction(async (tx) => {
      const rows = await tx.query<{ kind: 'key' | 'account'; subject_id: string; amount_nano: unknown }>(
        `UPDATE spend_holds AS h SET amount_nano = LEAST(h.amount_nano, t.keep)
           FROM json_to_recordset($2::json) AS t(kind text, subject_id text, keep bigint)
          WHERE h.holder = $1 AND h.kind = t.kind AND h.subject_id = t.subject_id
          RETURNING h.kind, h.subject_id, h.amount_nano`,
        [holder, input],
      );
      await tx.query('DELETE FROM spend_holds WHERE holder = $1 AND amount_nano = 0', [holder]);
      return rows.map((row) => ({ kind: row.kind, id: row.subject_id, heldNano: num(row.amount_nano) }));
    });
  }

  async releaseAll(holder: string): Promise<void> {
    await this.db.query('DELETE FROM spend_holds WHERE holder = $1', [holder]);
  }
}
