import type { ClusterChange, ClusterStore, NodeStatePatch, NodeStateRecord } from '../cluster-store.js';
import type { SqlDriver, SqlQueryable } from './sql-driver.js';

/** Announces a change to every instance (NOTIFY, delivered at commit) or to this process. */
export type AnnounceChange = (tx: SqlQueryable, change: ClusterChange) => Promise<void>;

/**
 * `node_states` and `gateway_instances` (migration 3). Every time is the database's
 * `now()`, so instances with skewed clocks agree on who is alive and how long an
 * ejection lasts.
 */
export class SqlClusterStore implements ClusterStore {
  constructor(
    private readonly db: SqlDriver,
    private readonly announce: AnnounceChange,
    readonly shared: boolean,
  ) {}

  async loadNodeStates(): Promise<NodeStateRecord[]> {
    const rows = await this.db.query<{
      node_id: string;
      drained: boolean;
      ejected_for_ms: unknown;
      updated_by_instance: string;
    }>(
      `SELECT node_id, drained, updated_by_instance,
         greatest(0, coalesce(extract(epoch FROM ejected_until - now()) * 1000, 0)) AS ejected_for_ms
       FROM node_states`,
    );
    return rows.map((row) => ({
      nodeId: row.node_id,
      drained: row.drained,
      ejectedForMs: Math.ceil(Number(row.ejected_for_ms)),
      updatedBy: row.updated_by_instance,
    }));
  }

  writeNodeState(nodeId: string, patch: NodeStatePatch, instanceId: string): Promise<void> {
    return this.db.transaction(async (tx) => {
      // A field the patch leaves out keeps its stored value ($4/$6 say which are given).
      await tx.query(
        `INSERT INTO node_states (node_id, drained, ejected_until, updated_by_instance)
         VALUES ($1, coalesce($2::boolean, false), now() + $3::double precision * interval '1 millisecond', $5)
         ON CONFLICT (node_id) DO UPDATE SET
           drained = CASE WHEN $4::boolean THEN EXCLUDED.drained ELSE node_states.drained END,
           ejected_until = CASE WHEN $6::boolean THEN EXCLUDED.ejected_until ELSE node_states.ejected_until END,
           updated_at = now(),
           updated_by_instance = EXCLUDED.updated_by_instance`,
        [
          nodeId,
          patch.drained ?? null,
          patch.ejectedForMs ?? null,
          patch.drained !== undefined,
          instanceId,
          patch.ejectedForMs !== undefined,
        ],
      );
      await this.announce(tx, { kind: 'node', id: nodeId, instanceId, ...patch });
    });
  }

  heartbeat(instanceId: string, expireAfterMs: number): Promise<string[]> {
    return this.db.transaction(async (tx) => {
      // xmax = 0 only on a freshly inserted row: this instance (re)joined.
      const [beat] = await tx.query<{ joined: boolean }>(
        `INSERT INTO gateway_instances (instance_id) VALUES ($1)
         ON CONFLICT (instance_id) DO UPDATE SET heartbeat_at = now()
         RETURNING (xmax = 0) AS joined`,
        [instanceId],
      );
      const dead = await tx.query(
        `DELETE FROM gateway_instances WHERE heartbeat_at < now() - $1::double precision * interval '1 millisecond' RETURNING instance_id`,
        [expireAfterMs],
      );
      if (beat?.joined === true || dead.length > 0) await this.announce(tx, { kind: 'instances', id: instanceId });
      return instanceIds(tx, expireAfterMs);
    });
  }

  liveInstances(expireAfterMs: number): Promise<string[]> {
    return instanceIds(this.db, expireAfterMs);
  }

  leave(instanceId: string): Promise<void> {
    return this.db.transaction(async (tx) => {
      const gone = await tx.query('DELETE FROM gateway_instances WHERE instance_id = $1 RETURNING instance_id', [
        instanceId,
      ]);
      if (gone.length > 0) await this.announce(tx, { kind: 'instances', id: instanceId });
    });
  }
}

async function instanceIds(db: SqlQueryable, expireAfterMs: number): Promise<string[]> {
  const rows = await db.query<{ instance_id: string }>(
    `SELECT instance_id FROM gateway_instances
     WHERE heartbeat_at >= now() - $1::double precision * interval '1 millisecond'
     ORDER BY instance_id COLLATE "C"`,
    [expireAfterMs],
  );
  return rows.map((row) => row.instance_id);
}
