// How one document matches the query: for each query term, where it occurs. Built from the shard's
// forward index (src/shard/documents/match-profile-builder.ts); the per-document rules compute their score
// from it alone, which is what makes scores absolute (independent of the shard holding the doc).

export interface DocMatchProfile {
  docId: number;
  /**
   * occurrences[term][0 .. counts[term]): packed occurrences (see packOccurrence), ascending = by field
   * then position. Entries past the count are left over from other documents: the lists are reused,
   * and emptying them (length = 0) was a fifth of building a profile.
   */
  occurrences: number[][];
  counts: Int32Array;
}

/** An empty profile for `termCount` terms, to fill and reuse. */
export function emptyProfile(termCount: number): DocMatchProfile {
  return { docId: -1, occurrences: Array.from({ length: termCount }, emptyOccurrenceList), counts: new Int32Array(termCount) };
}

/**
 * An empty list whose elements are doubles from the start (a double literal, emptied). An occurrence
 * past field 0 or position 511 is no small integer: a list made by `[]` changed element kind (and map)
 * at its first such occurrence, and the profile builder and every scorer reading lists met two maps.
 */
function emptyOccurrenceList(): number[] {
  const list = [0.5];
  list.length = 0;
  return list;
}

/** Appends an occurrence to the term's list. */
export function addOccurrence(profile: DocMatchProfile, term: number, occurrence: number): void {
  const list = profile.occurrences[term]!;
  const count = profile.counts[term]!;
  if (count < list.length) list[count] = occurrence;
  else list.push(occurrence);
  profile.counts[term] = count + 1;
}

/** The term's occurrences as a fresh array (for tests and rare paths). */
export function occurrencesOf(profile: DocMatchProfile, term: number): number[] {
  return profile.occurrences[term]!.slice(0, profile.counts[term]!);
}

// One double-safe integer per occurrence (53 bits), most significant first:
// field ordinal (16 bits) | position (16 bits) | field rank (16 bits) | typos (2 bits) | not exact (1 bit) | span (2 bits).
// The span is the words past the first one a word term's occurrence covers (0 for one word; a split
// of the term's word or a multi-word synonym: its words in a row, up to MAX_OCCURRENCE_SPAN more).
const FIELD_UNIT = 2 ** 37;
const POSITION_UNIT = 2 ** 21;
const RANK_UNIT = 32;
const SIXTEEN_BITS = 2 ** 16;
export const MAX_OCCURRENCE_SPAN = 3;

export function packOccurrence(field: number, position: number, rank: number, typos: number, exact: boolean, span = 0): number {
  return field * FIELD_UNIT + position * POSITION_UNIT + Math.min(rank, SIXTEEN_BITS - 1) * RANK_UNIT + typos * 8 + (exact ? 0 : 4)
    + Math.min(span, MAX_OCCURRENCE_SPAN);
}

// The accessors take the packed value apart with divisions by powers of two and floors, which are
// exact on these integers: `%` on a double above 2 ** 31 is a call to fmod in V8 (~20 ns, where these
// take ~1 ns), and the scorers call them for every occurrence of every document read.

export function occurrenceField(occurrence: number): number {
  return Math.floor(occurrence / FIELD_UNIT);
}

/** Field and position: field * 2 ** 16 + position, below 2 ** 32. */
function fieldAndPosition(occurrence: number): number {
  return Math.floor(occurrence / POSITION_UNIT);
}

/** Rank, typos, not-exact bit and span: the low 21 bits. */
function lowBits(occurrence: number): number {
  return occurrence - fieldAndPosition(occurrence) * POSITION_UNIT;
}

export function occurrencePosition(occurrence: number): number {
  return fieldAndPosition(occurrence) & (SIXTEEN_BITS - 1);
}

export function occurrenceRank(occurrence: number): number {
  return lowBits(occurrence) >>> 5;
}

export function occurrenceTypos(occurrence: number): number {
  return (lowBits(occurrence) >> 3) & 3;
}

export function occurrenceIsExact(occurrence: number): boolean {
  return (lowBits(occurrence) & 4) === 0;
}

/** The words past the first one the occurrence covers (packOccurrence's span). */
export function occurrenceSpan(occurrence: number): number {
  return lowBits(occurrence) & 3;
}
