import {
  holdKey,
  type HoldKind,
  type HoldAmount,
  type HoldDemand,
  type HoldGrant,
  type SpendHoldStore,
} from '../spend-holds.js';
import type { SqlDriver, SqlQueryable } from './sql-driver.js';

/** The budget a subject has in all: a key's limit minus its spend, an account's balance. */
const BUDGET = {
  key: 'SELECT spend_limit_nano - spent_nano AS budget FROM api_keys WHERE id = $1 AND spend_limit_nano IS NOT NULL FOR UPDATE',
  account: 'SELECT balance_nano AS budget FROM accounts WHERE id = $1 FOR UPDATE',
} as const;

/** Locks a window's owner: every usage batch booking into the window updates that row too. */
const OWNER_LOCK = {
  key: 'SELECT 1 FROM api_keys WHERE id = $1 FOR UPDATE',
  account: 'SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE',
} as const;

/** The row a demand's grant locks. */
function lockOf(demand: HoldDemand): { kind: 'key' | 'account'; id: string } {
  if (demand.kind !== 'window') return { kind: demand.kind, id: demand.id };
  return demand.window === undefined
    ? { kind: 'key', id: demand.id }
    : { kind: demand.window.ref.ownerKind, id: demand.window.ref.ownerId };
}

const num = (value: unknown): number => Number(value ?? 0);

/** Spend holds in the `spend_holds` table (migration 2) of a shared PostgreSQL store. */
export class SqlSpendHolds implements SpendHoldStore {
  constructor(
    private readonly db: SqlDriver,
    /** The NOTIFY channel of store changes, for `hold-wanted`. */
    private readonly channel: string,
  ) {}

  acquire(holder: string, demands: readonly HoldDemand[], ttlMs: number): Promise<HoldGrant[]> {
    // One lock order for every instance (accounts before keys, then by id; a window under
    // its owner's row, after it): no deadlocks.
    const ordered = [...demands].sort((a, b) => {
      const [ownerA, ownerB] = [lockOf(a), lockOf(b)];
      if (ownerA.kind !== ownerB.kind) return ownerA.kind === 'account' ? -1 : 1;
      if (ownerA.id !== ownerB.id) return ownerA.id < ownerB.id ? -1 : 1;
      if (a.kind !== b.kind) return a.kind === 'window' ? 1 : -1;
      return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
    });
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
    const subject = await this.budgetOf(tx, demand);
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

  /** The subject's budget in all, its owner's row locked; undefined when there is no such subject. */
  private async budgetOf(tx: SqlQueryable, demand: HoldDemand): Promise<{ budget: unknown } | undefined> {
    if (demand.kind !== 'window') {
      const [subject] = await tx.query<{ budget: unknown }>(BUDGET[demand.kind], [demand.id]);
      return subject;
    }
    if (demand.window === undefined) return undefined;
    const { ref, limitNano } = demand.window;
    const [owner] = await tx.query(OWNER_LOCK[ref.ownerKind], [ref.ownerId]);
    if (owner === undefined) return undefined;
    const [spent] = await tx.query<{ spent_nano: unknown }>(
      `SELECT spent_nano FROM budget_spend
        WHERE owner_kind = $1 AND owner_id = $2 AND period = $3 AND window_start = $4 AND end_user = $5`,
      [ref.ownerKind, ref.ownerId, ref.period, ref.start, ref.endUser ?? ''],
    );
    return { budget: limitNano - num(spent?.spent_nano) };
  }

  async renew(holder: string, ttlMs: number): Promise<HoldAmount[]> {
    const rows = await this.db.query<{ kind: HoldKind; subject_id: string; amount_nano: unknown }>(
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
      const rows = await tx.query<{ kind: HoldKind; subject_id: string; amount_nano: unknown }>(
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
