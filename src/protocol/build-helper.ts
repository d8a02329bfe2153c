// The build helper thread's one task (src/build-helper/worker.ts, a Tinypool task): a shard worker
// hands it a copy of a shard's forward-index arena and what to build over it (the near-pair tables
// with their plan, the rank / position lists' passes), and gets the arrays back. Every array is
// transferred, both ways: the worker keeps none of those it sends.
import type { NearPairPlan } from '../shard/pairs/near-pair-pass.js';
import type { PairTableState } from '../shard/pairs/pair-table-build.js';
import type { TokenKeyKind, TokenKeyPassResult } from '../shard/postings/token-key-pass.js';

/** A TokenKeyPostings' full build: its key, its limit and the words it covers (ids below wordCount). */
export interface TokenKeyPassSpec {
  key: TokenKeyKind;
  limit: number;
  wordCount: number;
}

export interface ArenaBuildRequest {
  /** The used part of the shard's forward-index arena, copied when the build started. */
  arena: Uint32Array;
  /** Every document the shard held then, ascending. */
  documents: Uint32Array;
  /** offsets[index]: documents[index]'s offset in `arena`. */
  offsets: Int32Array;
  /** The near-pair tables' plan, or null: not built. */
  nearPairs: NearPairPlan | null;
  tokenKeys: TokenKeyPassSpec[];
}

export interface ArenaBuildResult {
  /** The MAX_GAP gap tables, then one per short prefix of the plan (PairTable.fromState checks each); null when not asked. */
  nearPairTables: PairTableState[] | null;
  /** One per ArenaBuildRequest.tokenKeys, in order. */
  tokenKeys: TokenKeyPassResult[];
}
