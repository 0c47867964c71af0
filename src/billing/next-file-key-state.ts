import type { KeyStatus } from '../config/gateway-config.js';
import type { KeyRecord } from '../store/records.js';

/** The reason stored on a file's key whose line is gone from the file (PRODUCT decision 23). */
export const REMOVED_FROM_CONFIGURATION = 'removed from the configuration';
/** The reason stored on a key its line declares `status: blocked`. */
export const BLOCKED_IN_CONFIGURATION = 'blocked in the configuration';
/** The reason stored on a key its line declares `status: revoked`. */
export const REVOKED_IN_CONFIGURATION = 'revoked in the configuration';

/** Reasons the file set, so the file may lift them; a block without one of them is an operator's. */
const FILE_BLOCKS: ReadonlySet<string | null> = new Set([REMOVED_FROM_CONFIGURATION, BLOCKED_IN_CONFIGURATION]);

/** A key's status and its reason. */
export interface KeyState {
  readonly status: KeyStatus;
  readonly statusReason: string | null;
}

/** The state a new key gets from its line. */
export function declaredKeyState(declared: KeyStatus): KeyState {
  if (declared === 'blocked') return { status: 'blocked', statusReason: BLOCKED_IN_CONFIGURATION };
  if (declared === 'revoked') return { status: 'revoked', statusReason: REVOKED_IN_CONFIGURATION };
  return { status: declared, statusReason: null };
}

/**
 * The state a stored file key takes from its line (`declared`), or from the file no longer
 * having it (`undefined`); undefined when it keeps its own. The file blocks and unblocks
 * only what it blocked, so an operator's block (admin API, CLI) stands until an operator
 * lifts it, and a file started by mistake cannot destroy a key: a missing line blocks it
 * reversibly. Revoked and deleted stay final.
 */
export function nextFileKeyState(
  stored: Pick<KeyRecord, 'status' | 'statusReason'>,
  declared: KeyStatus | undefined,
): KeyState | undefined {
  const { status, statusReason } = stored;
  if (status === 'revoked' || status === 'deleted') return undefined;
  if (declared === undefined) {
    return status === 'active' ? { status: 'blocked', statusReason: REMOVED_FROM_CONFIGURATION } : undefined;
  }
  if (declared === 'active') {
    return status === 'blocked' && FILE_BLOCKS.has(statusReason) ? { status: 'active', statusReason: null } : undefined;
  }
  if (declared === 'blocked') {
    if (status === 'active' || statusReason === REMOVED_FROM_CONFIGURATION) return declaredKeyState('blocked');
    return undefined;
  }
  return declaredKeyState(declared);
}
