// attributesToSearchOn in a shard: which of a document's searchable fields a search reads. Meilisearch
// (milli's SearchContext::attributes_to_search_on): `*` lifts the restriction; a name selects the
// searchable field of that name only (its own field id: `a` holding an object selects nothing, its
// words being indexed under `a.b`); a name with `*` selects the fields its pattern matches (`*.title`,
// `details.*`); other names select nothing. Fields keep their rank (the
// attribute rule's order is the searchableAttributes one, whatever the list's order).
//
// The forward index knows a field by its ordinal in the document and its rank, not its name (with
// searchableAttributes `*` the rank is the ordinal): the names are read from the document itself when
// the rank cannot tell (analyzeDocument gives the fields with words in forward-index order).
import { analyzeDocument, type DocumentAnalysisOptions } from '../../analysis/document-tokens.js';
import { SearchOnNames } from '../../filter/search-on-names.js';
import { occurrenceField, occurrenceRank, type DocMatchProfile } from '../../ranking/match-profile.js';
import { phraseStarts } from '../documents/match-profile-builder.js';
import { fieldRankAt, tokenCountAt, tokensStartAt, type ForwardIndex } from '../documents/forward-index.js';
import { MAX_NAMED_RANKS } from '../shard-index.js';

/** The stored document of a shard's doc id (the latest written first), or undefined. */
export type StoredDocumentOf = (docId: number) => Record<string, unknown> | undefined;

/** Documents whose field verdicts one search keeps (two passes read the same documents: term documents, then ranking). */
const MAX_REMEMBERED_DOCUMENTS = 65_536;

const NO_FIELD: Uint8Array = new Uint8Array(0);

export class FieldRestriction {
  /** The names, matched once per field name (search-on-names.ts: no name-by-field loop). */
  private readonly names: SearchOnNames;
  /**
   * With explicit searchableAttributes: per rank, false when no name can select a field of that
   * selector (the field is its selector or a path inside it), so no document is read for it.
   */
  private readonly rankMayMatch: readonly boolean[] | null;
  /**
   * Per rank, 1 or 0 when the rank tells the verdict, -1 when a document's field names must be read. With
   * explicit searchableAttributes: when every field with words at that rank is named by its selector in the
   * shards searched (ShardIndex.fieldNamedByRank), the selector's verdict. With `*` (ranks are field
   * ordinals, below MAX_NAMED_RANKS): when every such field has one name in those shards (ShardIndex.nameAtRank), that name's.
   */
  private readonly rankVerdicts: Int8Array | null;
  /** docId -> 1 per field ordinal the search reads (this search's only). */
  private readonly verdicts = new Map<number, Uint8Array>();

  private constructor(names: readonly string[], searchable: readonly string[], private readonly analysis: DocumentAnalysisOptions,
    private readonly documentOf: StoredDocumentOf | null, namedByRank: ((rank: number) => boolean) | null,
    nameByRank: ((rank: number) => string | null) | null) {
    this.names = new SearchOnNames(names);
    const patterns = names.some((name) => name.includes('*'));
    // Every name and each of its dotted prefixes (`a.b.c`: `a`, `a.b`, `a.b.c`), so a selector is one lookup.
    const selected = new Set<string>();
    if (!patterns) {
      for (const name of names) {
        for (let dot = name.indexOf('.'); dot >= 0; dot = name.indexOf('.', dot + 1)) selected.add(name.slice(0, dot));
        selected.add(name);
      }
    }
    this.rankMayMatch = searchable.includes('*') ? null : searchable.map((selector) => patterns || selected.has(selector));
    if (this.rankMayMatch === null) {
      // `*`: a rank is a field ordinal; its verdict is its one name's, where the shards know one (ShardIndex.nameAtRank).
      this.rankVerdicts = nameByRank === null ? null : Int8Array.from({ length: MAX_NAMED_RANKS }, (_, rank) => {
        const name = nameByRank(rank);
        return name === null ? -1 : this.selects(name) ? 1 : 0;
      });
    } else {
      this.rankVerdicts = namedByRank === null ? null
        : Int8Array.from(searchable, (selector, rank) => (!namedByRank(rank) ? -1 : this.selects(selector) ? 1 : 0));
    }
  }

  /** null when the search reads every searchable field (no list, or `*` in it). */
  static of(names: unknown, searchable: readonly string[], analysis: DocumentAnalysisOptions, documentOf: StoredDocumentOf | null,
    namedByRank: ((rank: number) => boolean) | null = null, nameByRank: ((rank: number) => string | null) | null = null): FieldRestriction | null {
    if (!Array.isArray(names)) return null;
    const strings = names.filter((name): name is string => typeof name === 'string');
    if (strings.includes('*')) return null;
    return new FieldRestriction(strings, searchable, analysis, documentOf, namedByRank, nameByRank);
  }

  private selects(field: string): boolean {
    return this.names.selects(field);
  }

  /** 1 per field ordinal of the document the search reads (NO_FIELD: none). */
  private verdictOf(docId: number): Uint8Array {
    let verdict = this.verdicts.get(docId);
    if (verdict !== undefined) return verdict;
    const document = this.documentOf?.(docId);
    if (document === undefined) verdict = NO_FIELD;
    else {
      const fields = analyzeDocument(document, this.analysis);
      verdict = new Uint8Array(fields.length);
      for (let k = 0; k < fields.length; k++) verdict[k] = this.selects(fields[k]!.field) ? 1 : 0;
    }
    if (this.verdicts.size < MAX_REMEMBERED_DOCUMENTS) this.verdicts.set(docId, verdict);
    return verdict;
  }

  /** Drops from the profile the occurrences in fields the search does not read (in place); returns it. */
  restrictProfile(profile: DocMatchProfile): DocMatchProfile {
    const { occurrences, counts } = profile;
    const mayMatch = this.rankMayMatch;
    const rankVerdicts = this.rankVerdicts;
    let verdict: Uint8Array | null = null;
    for (let term = 0; term < counts.length; term++) {
      const list = occurrences[term]!;
      const count = counts[term]!;
      let kept = 0;
      for (let k = 0; k < count; k++) {
        const occurrence = list[k]!;
        const rank = occurrenceRank(occurrence);
        if (mayMatch !== null && mayMatch[rank] !== true) continue;
        const byRank = rankVerdicts === null ? -1 : rankVerdicts[rank] ?? -1;
        if (byRank === 0) continue;
        if (byRank === 1) {
          list[kept++] = occurrence;
          continue;
        }
        verdict ??= this.verdictOf(profile.docId);
        if (verdict[occurrenceField(occurrence)] !== 1) continue;
        list[kept++] = occurrence;
      }
      counts[term] = kept;
    }
    return profile;
  }

  /** Whether the document's field (ordinal, rank) is read by the search. */
  reads(docId: number, field: number, rank: number): boolean {
    if (this.rankMayMatch !== null && this.rankMayMatch[rank] !== true) return false;
    const byRank = this.rankVerdicts === null ? -1 : this.rankVerdicts[rank] ?? -1;
    if (byRank !== -1) return byRank === 1;
    return this.verdictOf(docId)[field] === 1;
  }

  /** Whether the document holds one of the words (ids) in a field the search reads: the negative operator's test. */
  holdsWord(forward: ForwardIndex, docId: number, wordIds: ReadonlySet<number>): boolean {
    const data = forward.arena;
    const offset = forward.offsetOf(docId);
    if (offset < 0) return false;
    const start = tokensStartAt(data, offset);
    const end = start + tokenCountAt(data, offset) * 2;
    for (let at = start; at < end; at += 2) {
      if (!wordIds.has(data[at]!)) continue;
      const field = data[at + 1]! >>> 16;
      if (this.reads(docId, field, fieldRankAt(data, offset, field))) return true;
    }
    return false;
  }

  /** Whether the phrase (word ids, null: any word) stands in a row in a field the search reads. */
  holdsPhrase(forward: ForwardIndex, docId: number, wordIds: (number | null)[]): boolean {
    const data = forward.arena;
    const offset = forward.offsetOf(docId);
    if (offset < 0) return false;
    for (const key of phraseStarts(data, offset, wordIds)) {
      const field = key >>> 16;
      if (this.reads(docId, field, fieldRankAt(data, offset, field))) return true;
    }
    return false;
  }
}
