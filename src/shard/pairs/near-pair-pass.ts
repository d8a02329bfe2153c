// The near-pair build's pass over the documents (NearPairPostings.buildFrom), apart from the shard:
// given the frequent words' slots and the short prefixes' plan, it reads each document's tokens from
// a forward-index arena and fills the gap tables and the short prefixes' tables. The shard worker
// runs it on its own arena (in steps between searches), or hands a copy of the arena to the build
// helper thread (src/build-helper/), which runs the same code: the tables are the same either way
// (test/unit/build-helper.test.ts).
import { tokenCountAt, tokensStartAt } from '../documents/forward-index.js';
import type { ArenaPassSource } from '../documents/arena-pass.js';
import { buildPairTablesSteps, type PairReplay, type PairSink, type PairTableState } from './pair-table-build.js';
import { PREFIX_THEN_WORD_GAP_1, prefixTableKey, prefixTableKeySpace, WORD_THEN_PREFIX_GAP_1, WORD_THEN_PREFIX_GAP_2 } from './prefix-table-keys.js';

/** Gaps (position differences) with a table: 1 (adjacent) and 2 (one word between). */
export const MAX_GAP = 2;

/**
 * Documents a step of the build's passes visits: every token emits up to MAX_GAP pairs and prefix-table
 * entries, so SLICE_POLICY.documentsPerStep (4,096) made steps of ~10 ms at 100k npm rows, over the
 * worker's 8 ms catch-up slices (a slice ends between steps: bench/build-step-times.mjs).
 */
const PAIR_DOCUMENTS_PER_STEP = 1024;

/** What the pass is told of the words (worked out from the vocabulary before it starts). */
export interface NearPairPlan {
  /** slotOfWord[wordId]: the frequent word's slot, or -1. */
  slotOfWord: Int32Array;
  slotCount: number;
  /** tableOfWord[wordId]: the index of the rare word's short-prefix table, or -1 (ShortPrefixPlan). */
  tableOfWord: Int32Array;
  /** splitOfWord[wordId]: the rare word's tag in its short-prefix table (ShortPrefixPlan). */
  splitOfWord: Int32Array;
  /** Short-prefix tables after the MAX_GAP gap tables. */
  prefixCount: number;
}

/** The tables' key spaces: the gap tables', then the short prefixes'. */
function nearPairKeySpaces(plan: NearPairPlan): number[] {
  return [...Array.from({ length: MAX_GAP }, () => plan.slotCount * plan.slotCount),
    ...Array.from({ length: plan.prefixCount }, () => prefixTableKeySpace(plan.slotCount))];
}

/**
 * The MAX_GAP gap tables, then the short prefixes' tables, in steps. `replay`: the fill replays what
 * the counting pass recorded (the documents' tokens read and their slots looked up once, not twice).
 */
export function* nearPairTablesSteps(plan: NearPairPlan, documents: Uint32Array, source: ArenaPassSource, replay: boolean): Generator<void, PairTableState[], unknown> {
  const keySpaces = nearPairKeySpaces(plan);
  // The short prefixes' tables tag their documents with the rare word's split (prefix-pair-tables.ts).
  const tagged = keySpaces.map((_, table) => table >= MAX_GAP);
  // The fill keeps the documents the pass's second call would emit: those not written since the build started.
  const replayed: PairReplay | null = replay ? { keep: (docId: number) => !source.skips(docId) } : null;
  return yield* buildPairTablesSteps(keySpaces.length, keySpaces, (sink) => visitNearPairs(plan, documents, source, sink), tagged, replayed);
}

/**
 * Every (gap - 1, left slot * slotCount + right slot, docId) with the right word `gap` positions
 * after the left in one field; and for the short prefixes' tables (table MAX_GAP + prefix index),
 * what prefix-pair-tables.ts collects for a rare word: a slotted word 1 or 2 positions before it,
 * or 1 after (tagged with the word's split).
 */
function* visitNearPairs(plan: NearPairPlan, documents: Uint32Array, source: ArenaPassSource, sink: PairSink): Generator<void, void, unknown> {
  const { slotOfWord, slotCount, tableOfWord, splitOfWord } = plan;
  const hasPrefixTables = plan.prefixCount > 0;
  // Words newer than the build (written meanwhile: their documents count as changed) have no slot and no prefix table.
  const slotCountOfWords = slotOfWord.length;
  source.rewind();
  for (let index = 0; index < documents.length; index++) {
    if (index > 0 && index % PAIR_DOCUMENTS_PER_STEP === 0) {
      yield;
      source.resume();
    }
    const data = source.arena();
    const docId = documents[index]!;
    if (source.skips(docId)) continue;
    const offset = source.offsetAt(index);
    if (offset < 0) continue;
    const start = tokensStartAt(data, offset);
    const tokenCount = tokenCountAt(data, offset);
    const end = start + tokenCount * 2;
    // At most MAX_GAP pairs, or 3 prefix-table entries, a token.
    const entries = sink.reserve(Math.max(MAX_GAP, 3) * tokenCount);
    let length = 0;
    for (let k = start; k < end; k += 2) {
      const wordId = data[k]!;
      const left = wordId < slotCountOfWords ? slotOfWord[wordId]! : -1;
      if (left < 0) {
        if (!hasPrefixTables) continue;
        const table = wordId < tableOfWord.length ? tableOfWord[wordId]! : -1;
        if (table < 0) continue;
        const tag = splitOfWord[wordId]!;
        // Positions ascend within a field, so a word `gap` positions away is at most `gap` tokens away.
        for (let before = k - 2; before >= start && before >= k - 4; before -= 2) {
          const gap = positionGap(data[before + 1]!, data[k + 1]!);
          const beforeWord = data[before]!;
          const slot = beforeWord < slotCountOfWords ? slotOfWord[beforeWord]! : -1;
          if (slot < 0 || (gap !== 1 && gap !== 2)) continue;
          entries[length++] = MAX_GAP + table;
          entries[length++] = prefixTableKey(slot, gap === 1 ? WORD_THEN_PREFIX_GAP_1 : WORD_THEN_PREFIX_GAP_2);
          entries[length++] = tag;
        }
        const after = k + 2;
        if (after < end && positionGap(data[k + 1]!, data[after + 1]!) === 1) {
          const afterWord = data[after]!;
          const slot = afterWord < slotCountOfWords ? slotOfWord[afterWord]! : -1;
          if (slot >= 0) {
            entries[length++] = MAX_GAP + table;
            entries[length++] = prefixTableKey(slot, PREFIX_THEN_WORD_GAP_1);
            entries[length++] = tag;
          }
        }
        continue;
      }
      // Positions ascend within a field, so the token `gap` positions on is at most `gap` tokens on.
      for (let next = k + 2; next < end && next <= k + 2 * MAX_GAP; next += 2) {
        const gap = positionGap(data[k + 1]!, data[next + 1]!);
        if (gap < 1 || gap > MAX_GAP) continue;
        const nextWord = data[next]!;
        const right = nextWord < slotCountOfWords ? slotOfWord[nextWord]! : -1;
        if (right < 0) continue;
        entries[length++] = gap - 1;
        entries[length++] = left * slotCount + right;
        entries[length++] = 0;
      }
    }
    if (length > 0) sink.end(docId, length);
  }
}

/** Positions apart within one field (a token's field << 16 | position), -1 across fields. */
export function positionGap(key: number, next: number): number {
  return key >>> 16 === next >>> 16 ? (next & 0xffff) - (key & 0xffff) : -1;
}
