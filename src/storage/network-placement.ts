// What a node's documents follow in a sharded cluster (issue 23), in the `meta` db: the shard groups
// of the last topology change applied here and its task uid, and the change in progress (written by
// the scheduler, scheduler/operations/network-move.ts, in the transactions of its steps; read by the front's
// network search and move routes). Pure readers, every thread.
import type { Placement } from '../documents/shard-group.js';
import type { Storage } from './environment.js';

import { NETWORK_MOVE, NETWORK_PLACEMENT, NETWORK_PLACEMENT_UID } from './meta-keys.js';

export type MovePhase = 'import' | 'wait' | 'drop';

export interface MoveState {
  uid: number;
  phase: MovePhase;
  /** The groups before and after the change (the documents follow `previous` until the drop step). */
  previous: Placement;
  next: Placement;
  /** Position in the sorted index uids, and in the source groups (import). */
  index: number;
  group: number;
  /** The last external id fetched or scanned (null: from the start). */
  after: string | null;
  imported: number;
  moved: number;
  /** When a node was first found unreachable in this phase (ms since epoch), else null. */
  unreachableSince: number | null;
  /** wait: whether this node holds documents to give away (scanned once). */
  drops?: boolean;
}

export function readMoveState(storage: Pick<Storage, 'meta'>): MoveState | null {
  const text = storage.meta.get(NETWORK_MOVE);
  return typeof text === 'string' ? (JSON.parse(text) as MoveState) : null;
}

export function readPlacement(storage: Pick<Storage, 'meta'>): Placement | null {
  const text = storage.meta.get(NETWORK_PLACEMENT);
  return typeof text === 'string' ? (JSON.parse(text) as Placement) : null;
}

/**
 * The groups this node's documents answer for, and their version: a search's groups must all answer
 * at one version (network-search.ts). The version is the uid of the topology change whose groups they
 * follow (-1: none applied yet): it moves when a node starts dropping (every node of the new groups
 * then imported its share) or ends a change with nothing to drop, never with a document write, so it
 * always names the documents a search reads. null placement: no change applied (the configuration's).
 */
export function servingPlacement(storage: Pick<Storage, 'meta'>): { version: number; placement: Placement | null } {
  const state = readMoveState(storage);
  if (state !== null) return state.phase === 'drop' ? { version: state.uid, placement: state.next } : { version: previousVersion(storage), placement: state.previous };
  return { version: previousVersion(storage), placement: readPlacement(storage) };
}

function previousVersion(storage: Pick<Storage, 'meta'>): number {
  const value = storage.meta.get(NETWORK_PLACEMENT_UID);
  return value === undefined ? -1 : Number(value);
}
