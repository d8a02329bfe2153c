// exactness's buckets from bitmaps: the number of terms without an exact occurrence comes from each
// term's exact-word documents, and only documents holding every term exactly at its query position
// (the only ones that can have a field equal to, or starting with, the query) are read one by one.
// So the last rule of the default order no longer reads every document of its bucket (score-chain.ts).
import type roaring from 'roaring';
import { EXACT_FIELD, exactnessScore, FIELD_STARTS_WITH_QUERY, NO_EXACT_FIELD, STATE_SPAN } from './exactness.js';
import { NO_DOCUMENTS, orderedPart, partsBySum, type OrderedPart } from '../scores/score-layers.js';
import { acceleratorOf, scratchOf, type ActiveTerms, type SearchContext } from '../search-context.js';
import { OWNED_BITMAPS, type BitmapSource } from '../scratch-bitmaps.js';
import { positionCount } from '../../query/query-term.js';
import { mapPacked } from '../packed-arrays.js';

type RoaringBitmap32 = roaring.RoaringBitmap32;

/** Every part with its score, ascending (the rest's made only when asked for); null when the postings cannot tell (phrases, far query positions). */
export function exactnessParts(ctx: SearchContext, universe: RoaringBitmap32, terms: ActiveTerms): Iterable<OrderedPart> | null {
  if (terms.length === 0) return null;
  const accelerator = acceleratorOf(ctx);
  const exactDocs: RoaringBitmap32[] = [];
  for (const term of terms) {
    const docs = accelerator.termExactDocs(term);
    if (docs === null) return null;
    exactDocs.push(docs);
  }
  // The parts live during the search only: the search's scratch bitmaps.
  const bitmaps = scratchOf(ctx);
  // Documents that may have a field starting with the query: the rest are NO_EXACT_FIELD for sure.
  // (The first intersection makes the bitmap narrowed in place: no copy of the universe. Terms not
  // at their query positions 0.. (a term dropped before them): none can, and it is never narrowed.)
  const fromStart = terms.every((term, k) => term === k);
  // The first two terms' field starts: one field holding both (a word in most documents is at
  // position 0 of one field and 1 of another in thousands that no field starts with the query).
  const fieldStarts = fromStart && terms.length >= 2 && ctx.terms[terms[0]!]!.position === 0 && ctx.terms[terms[1]!]!.position === 1
    ? accelerator.termsExactFieldStartDocs(terms[0]!, terms[1]!, universe) : null;
  let mayStartWithQuery: RoaringBitmap32 | null = fieldStarts?.starts ?? (fromStart ? null : NO_DOCUMENTS);
  for (let k = fieldStarts === null ? 0 : 2; k < terms.length; k++) {
    const term = terms[k]!;
    if (mayStartWithQuery !== null && mayStartWithQuery.isEmpty) break;
    const docs = accelerator.termExactDocsAtPosition(term, ctx.terms[term]!.position);
    if (docs === null) return null;
    if (mayStartWithQuery === null) mayStartWithQuery = bitmaps.and(universe, docs);
    else mayStartWithQuery.andInPlace(docs);
  }
  if (mayStartWithQuery === null) return null;
  const byScore = new Map<number, RoaringBitmap32>();
  const addTo = (score: number, docs: RoaringBitmap32) => {
    const slot = byScore.get(score);
    if (slot) slot.orInPlace(docs);
    else byScore.set(score, docs);
  };
  // One word at position 0: a field starting with it holds it at 0, and equals it when that is its only word.
  const soleWord = terms.length === 1 && ctx.terms[terms[0]!]!.kind === 'word' && ctx.terms[terms[0]!]!.position === 0
    ? accelerator.termExactSoleFieldDocs(terms[0]!, mayStartWithQuery) : null;
  // The slots of byScore are narrowed in place (addTo): each is a bitmap of this function's own, or
  // soleWord (made for it), or a part of the rest (made here), never one of the context's lists.
  let toRead = mayStartWithQuery;
  // Two words, both exact at positions 0 and 1 of one field: equal to the query when they are the
  // field's only words (exactFieldState: the field's word count is the query's length, 2).
  const twoWordFields = fieldStarts !== null && terms.length === 2 && queryPositions(ctx, terms) === 2 ? fieldStarts.alone : null;
  if (twoWordFields !== null) {
    if (!twoWordFields.isEmpty) addTo(EXACT_FIELD * STATE_SPAN, twoWordFields);
    const startsWith = bitmaps.andNot(mayStartWithQuery, twoWordFields);
    if (!startsWith.isEmpty) addTo(FIELD_STARTS_WITH_QUERY * STATE_SPAN, startsWith);
    toRead = NO_DOCUMENTS;
  } else if (soleWord !== null) {
    if (!soleWord.isEmpty) addTo(EXACT_FIELD * STATE_SPAN, soleWord);
    const startsWith = bitmaps.andNot(mayStartWithQuery, soleWord);
    if (!startsWith.isEmpty) addTo(FIELD_STARTS_WITH_QUERY * STATE_SPAN, startsWith);
    toRead = NO_DOCUMENTS;
  }
  const readScores = new Map<number, number[]>();
  if (!toRead.isEmpty) {
    // Through profilesOf when the shard has it: it looks the documents up at once (cache misses overlap).
    const toReadIds = toRead.toUint32Array();
    const profileAt = accelerator.profilesOf(toReadIds) ?? ((index: number) => ctx.profile(toReadIds[index]!));
    for (let index = 0; index < toReadIds.length; index++) {
      const docId = toReadIds[index]!;
      const score = exactnessScore(ctx, profileAt(index), terms);
      const docIds = readScores.get(score);
      if (docIds) docIds.push(docId);
      else readScores.set(score, [docId]);
    }
  }
  for (const [score, docIds] of readScores) addTo(score, bitmaps.fromIds(docIds));
  // The rest (no field starts with the query) only when asked for: the parts above often hold the
  // hits wanted (a one-word query's documents starting with it), and cutting the rest by exact terms
  // was a sixth of a one-word query's time. Its parts score above every part above but read ones.
  const restParts = (): void => {
    // None may start with the query (a prefix or typo term's universe, often thousands): the rest is the
    // universe itself, read-only here (its parts are only handed out, or narrow a slot of this function's own).
    const rest = mayStartWithQuery.isEmpty ? universe : mayStartWithQuery.size === universe.size ? NO_DOCUMENTS : bitmaps.andNot(universe, mayStartWithQuery);
    const inexactLayers = partsBySum(rest, mapPacked(exactDocs, (docs) => splitByExactDocs(rest, docs, bitmaps)), terms.length, bitmaps);
    for (const layer of inexactLayers) addTo(NO_EXACT_FIELD * STATE_SPAN + layer.score!, layer.docs);
  };
  return partsThenRest(byScore, restParts);
}

/**
 * The parts of byScore below NO_EXACT_FIELD in score order, then, once asked for more, those of
 * byScore after `addRest` (the rest's parts, all scoring NO_EXACT_FIELD or more, merged with the read
 * ones that do), in score order.
 */
function* partsThenRest(byScore: Map<number, RoaringBitmap32>, addRest: () => void): Generator<OrderedPart> {
  const first = [...byScore].filter(([score]) => score < NO_EXACT_FIELD * STATE_SPAN).sort((a, b) => a[0] - b[0]);
  for (const [score, docs] of first) {
    byScore.delete(score);
    yield orderedPart(docs, score);
  }
  addRest();
  for (const [score, docs] of [...byScore].sort((a, b) => a[0] - b[0])) yield orderedPart(docs, score);
}

/** Positions the terms take in the query (a phrase takes its length). */
function queryPositions(ctx: SearchContext, terms: ActiveTerms): number {
  let positions = 0;
  for (const term of terms) positions += positionCount(ctx.terms[term]!);
  return positions;
}

/**
 * [documents of `rest` with the term exact, those without]. Often one side is all of `rest` (a word's
 * documents hold it exactly; a prefix's mostly hold longer words): that side is `rest` itself, not a
 * copy (at a million documents those copies were a tenth of the native bitmap bytes made per query).
 * `rest` is the caller's own bitmap: its parts may become the parts handed out.
 */
export function splitByExactDocs(rest: RoaringBitmap32, exactDocs: RoaringBitmap32, bitmaps: BitmapSource = OWNED_BITMAPS): [RoaringBitmap32, RoaringBitmap32] {
  if (!rest.intersects(exactDocs)) return [NO_DOCUMENTS, rest];
  if (rest.isSubset(exactDocs)) return [rest, NO_DOCUMENTS];
  return [bitmaps.and(rest, exactDocs), bitmaps.andNot(rest, exactDocs)];
}
