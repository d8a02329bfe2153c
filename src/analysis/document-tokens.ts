// What a document contributes to the search index: for each searchable flattened field, its words
// with positions and the field's rank (its weight for the attributeRank rule, lower is better).
import { flattenDocument } from '../documents/flatten.js';
import { defaultClassifier, type CharClassifier } from './separators.js';
import { MAX_POSITION, tokenizeInto } from './tokenizer.js';
import { TokenizeScratch, tokenizeIdsInto, type WordInterner } from './tokenize-ids.js';

export interface FieldTokens {
  /** Flattened field name. */
  field: string;
  /** Weight of the field: index of its selector in searchableAttributes, or with ["*"] its position among the document's fields. */
  rank: number;
  words: string[];
  positions: number[];
}

export interface DocumentAnalysisOptions {
  /** searchableAttributes setting; ["*"] = every field. */
  searchableAttributes: readonly string[];
  /** Normalized stop words: they take a position but are not indexed. */
  stopWords: ReadonlySet<string>;
  /** The index's separator settings (separatorTokens / nonSeparatorTokens); default separators when absent. */
  classify?: CharClassifier;
  /** The fields' ranks by searchableAttributes, memoized (FieldRanks; index-config.ts makes one per settings). Absent: made per document. */
  fieldRanks?: FieldRanks;
}

/**
 * The document's searchable fields with their rank, in document order. With ["*"] the rank is the
 * field's position among the document's own non-object fields: it needs no index-wide field map, so
 * a document ranks the same whichever shard holds it.
 */
function* searchableFields(document: Record<string, unknown>, options: DocumentAnalysisOptions): Generator<[field: string, rank: number, value: unknown]> {
  const rankOf = options.searchableAttributes.includes('*') ? null : selectorRanks(options);
  let ordinal = 0;
  for (const [field, value] of fieldsOf(document)) {
    if (isPlainObject(value)) continue;
    const fieldOrdinal = ordinal++;
    const rank = rankOf === null ? fieldOrdinal : rankOf(field);
    if (rank >= 0) yield [field, rank, value];
  }
}

export function analyzeDocument(document: Record<string, unknown>, options: DocumentAnalysisOptions): FieldTokens[] {
  const out: FieldTokens[] = [];
  for (const [field, rank, value] of searchableFields(document, options)) {
    const words: string[] = [];
    const positions: number[] = [];
    collectValue(value, 0, { words, positions, options, interner: null, ids: null, tokenize: null });
    if (words.length > 0) out.push({ field, rank, words, positions });
  }
  return out;
}

/** A document's tokens as the shard's forward index stores them (flat, one entry per token). */
export interface DocumentTokenArrays {
  /** Rank of each field with words, by field ordinal. */
  fieldRanks: number[];
  wordIds: number[];
  /** Field ordinal of each token. */
  fields: number[];
  positions: number[];
}

/**
 * The arrays analyzeDocumentInto fills, reused document after document, with the tokenizer's scratch.
 * Owner: a ShardIndex (its upserts, one at a time), for the shard's life; the forward index copies
 * each document's tokens out before the next. Size: the largest document's tokens so far (four
 * arrays of one number a token, the fields' ranks one a field).
 */
export class DocumentTokenScratch implements DocumentTokenArrays {
  readonly fieldRanks: number[] = [];
  readonly wordIds: number[] = [];
  readonly fields: number[] = [];
  readonly positions: number[] = [];
  /**
   * With explicit searchableAttributes: the ranks of this document's fields with words whose name is
   * not their selector itself (`a.b` under `a`, `*.title`): attributesToSearchOn must read such a
   * document's field names (search/field-restriction.ts); other fields are named by their rank.
   */
  readonly inexactRanks: number[] = [];
  /**
   * With searchableAttributes `*` (ranks are the fields' ordinals): the name of each field with words,
   * by field ordinal (as fieldRanks), so a shard learns which name every rank holds (ShardIndex.nameAtRank).
   */
  readonly rankNames: string[] = [];
  readonly tokenize = new TokenizeScratch();

  /** Empties the arrays for the next document. */
  clear(): void {
    this.fieldRanks.length = this.wordIds.length = this.fields.length = this.positions.length = this.inexactRanks.length = 0;
    this.rankNames.length = 0;
  }
}

/**
 * analyzeDocument with each word interned and everything appended to flat arrays (no per-field
 * objects): what ShardIndex.upsert indexes. Same fields, ranks, words and positions.
 */
export function analyzeDocumentInto(document: Record<string, unknown>, options: DocumentAnalysisOptions, interner: WordInterner,
  out: DocumentTokenScratch): void {
  const sink: TokenSink = { words: null, positions: out.positions, options, interner, ids: out.wordIds, tokenize: out.tokenize };
  const rankOf = options.searchableAttributes.includes('*') ? null : selectorRanks(options);
  if (isSimple(document)) {
    // The common document: its fields walked in place, without the (field, value) pairs of fieldsOf.
    walkFieldsInto(document, null, { ordinal: 0, rankOf, sink, out });
    return;
  }
  let ordinal = 0;
  for (const [field, value] of flattenDocument(document)) {
    if (isPlainObject(value)) continue;
    const fieldOrdinal = ordinal++;
    const rank = rankOf === null ? fieldOrdinal : rankOf(field);
    if (rank >= 0) collectField(rank, rankOf === null || field === options.searchableAttributes[rank], value, sink, out, rankOf === null ? field : null);
  }
}

/**
 * One searchable field's tokens appended to `out` (a field without words takes no field ordinal).
 * `named`: the field's name is its rank's selector (or the ranks are ordinals, with `*`); `name`: the
 * field's name, with `*` only (DocumentTokenScratch.rankNames).
 */
function collectField(rank: number, named: boolean, value: unknown, sink: TokenSink, out: DocumentTokenScratch, name: string | null): void {
  const { wordIds, fields, fieldRanks } = out;
  const before = wordIds.length;
  collectValue(value, 0, sink);
  if (wordIds.length === before) return;
  const tokenField = fieldRanks.length;
  fieldRanks.push(rank);
  if (!named) out.inexactRanks.push(rank);
  if (name !== null) out.rankNames.push(name);
  for (let k = before; k < wordIds.length; k++) fields.push(tokenField);
}

interface FieldWalk {
  ordinal: number;
  rankOf: ((field: string) => number) | null;
  sink: TokenSink;
  out: DocumentTokenScratch;
}

/** searchableFields over a simple document (isSimple): the same fields, ranks and order as fieldsOf's walk. */
function walkFieldsInto(object: Record<string, unknown>, prefix: string | null, walk: FieldWalk): void {
  for (const key in object) {
    if (!Object.hasOwn(object, key)) continue;
    const path = prefix === null ? key : `${prefix}.${key}`;
    const value = object[key];
    if (isPlainObject(value)) {
      walkFieldsInto(value as Record<string, unknown>, path, walk);
      continue;
    }
    const fieldOrdinal = walk.ordinal++;
    const rank = walk.rankOf === null ? fieldOrdinal : walk.rankOf(path);
    if (rank >= 0) collectField(rank, walk.rankOf === null || path === walk.sink.options.searchableAttributes[rank], value, walk.sink, walk.out, walk.rankOf === null ? path : null);
  }
}

/** No dotted key and no array holding an object, at any depth: walkSimple's condition, checked without building its pairs. */
function isSimple(object: Record<string, unknown>): boolean {
  for (const key in object) {
    if (!Object.hasOwn(object, key)) continue;
    if (key.includes('.')) return false;
    const value = object[key];
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      if (value.some(isPlainObject)) return false;
    } else if (!isSimple(value as Record<string, unknown>)) return false;
  }
  return true;
}

/** Where collectValue appends: words (analyzeDocument) or their ids (analyzeDocumentInto). */
interface TokenSink {
  words: string[] | null;
  positions: number[];
  options: DocumentAnalysisOptions;
  interner: WordInterner | null;
  ids: number[] | null;
  /** With an interner: the tokenizer's scratch. */
  tokenize: TokenizeScratch | null;
}

/**
 * Index of the first searchable selector selecting a field (-1: none), per field name. Owner: the
 * index's compiled settings (IndexConfig.analysis.fieldRanks), one per settings of an index in a
 * worker, replaced with them. Size: at most MAX_CACHED_FIELDS names (later ones are computed each time).
 */
export class FieldRanks {
  private readonly ranks = new Map<string, number>();
  /** The first index of each selector: a field's rank is the least over itself and its dotted prefixes (linear in the field's length, not in the number of selectors). */
  private readonly firstIndex = new Map<string, number>();

  constructor(searchableAttributes: readonly string[]) {
    searchableAttributes.forEach((selector, k) => { if (!this.firstIndex.has(selector)) this.firstIndex.set(selector, k); });
  }

  readonly rankOf = (field: string): number => {
    let rank = this.ranks.get(field);
    if (rank === undefined) {
      rank = this.firstIndex.get(field) ?? -1;
      for (let dot = field.indexOf('.'); dot >= 0; dot = field.indexOf('.', dot + 1)) {
        const prefixRank = this.firstIndex.get(field.slice(0, dot));
        if (prefixRank !== undefined && (rank < 0 || prefixRank < rank)) rank = prefixRank;
      }
      if (this.ranks.size < MAX_CACHED_FIELDS) this.ranks.set(field, rank);
    }
    return rank;
  };
}

/** Index of the first searchable selector selecting the field (-1: none), memoized per settings (FieldRanks). */
function selectorRanks(options: DocumentAnalysisOptions): (field: string) => number {
  return (options.fieldRanks ?? new FieldRanks(options.searchableAttributes)).rankOf;
}

const MAX_CACHED_FIELDS = 4096;

/**
 * flattenDocument's (field, value) pairs in its order. Without dotted keys and arrays of objects
 * (nearly every document) each path is met once and arrays have no children, so a plain depth-first
 * walk gives the same pairs without building a Map; otherwise flattenDocument itself.
 */
function fieldsOf(document: Record<string, unknown>): Iterable<[string, unknown]> {
  const out: [string, unknown][] = [];
  return walkSimple(document, null, out) ? out : flattenDocument(document);
}

/** false when the document needs flattenDocument (a dotted key, an array holding an object). */
function walkSimple(object: Record<string, unknown>, prefix: string | null, out: [string, unknown][]): boolean {
  for (const key in object) {
    if (!Object.hasOwn(object, key)) continue;
    if (key.includes('.')) return false;
    const path = prefix === null ? key : `${prefix}.${key}`;
    const value = object[key];
    out.push([path, value]);
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      if (value.some(isPlainObject)) return false;
    } else if (!walkSimple(value as Record<string, unknown>, path, out)) return false;
  }
  return true;
}

/** Adds the words of a value (recursing into arrays, skipping objects and null) and returns the next free position. */
function collectValue(value: unknown, position: number, sink: TokenSink): number {
  if (position >= MAX_POSITION) return position;
  if (typeof value === 'string') return collectText(value, position, sink);
  if (typeof value === 'number' || typeof value === 'boolean') return collectText(String(value), position, sink);
  if (Array.isArray(value)) {
    let next = position;
    for (const element of value) next = collectValue(element, next, sink);
    return next;
  }
  return position;
}

function collectText(text: string, position: number, sink: TokenSink): number {
  // Stop words take a position but are not indexed. Array elements are separated as if by a hard
  // separator: the returned position leaves that gap after the text.
  const { options } = sink;
  const classify = options.classify ?? defaultClassifier;
  if (sink.interner !== null) return tokenizeIdsInto(text, position, classify, sink.interner, sink.ids!, sink.positions, sink.tokenize!, options.stopWords);
  return tokenizeInto(text, position, classify, sink.words!, sink.positions, options.stopWords);
}

function isPlainObject(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
