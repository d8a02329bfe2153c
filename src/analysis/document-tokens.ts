// What a document contributes to the search index: for each searchable flattened field, its words
// with positions and the field's rank (its weight for the attributeRank rule, lower is better).
import { flattenDocument, selectsField } from '../documents/flatten.js';
import { defaultClassifier, type CharClassifier } from './separators.js';
import { MAX_POSITION, tokenizeInto } from './tokenizer.js';

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
}

/**
 * With ["*"] the rank is the field's position among the document's own non-object fields: it needs no
 * index-wide field map, so a document ranks the same whichever shard holds it.
 */
export function analyzeDocument(document: Record<string, unknown>, options: DocumentAnalysisOptions): FieldTokens[] {
  const everyField = options.searchableAttributes.includes('*');
  const out: FieldTokens[] = [];
  let ordinal = 0;
  for (const [field, value] of flattenDocument(document)) {
    if (isPlainObject(value)) continue;
    const fieldOrdinal = ordinal++;
    const rank = everyField ? fieldOrdinal : options.searchableAttributes.findIndex((selector) => selectsField(selector, field));
    if (rank < 0) continue;
    const words: string[] = [];
    const positions: number[] = [];
    collectValue(value, 0, words, positions, options);
    if (words.length > 0) out.push({ field, rank, words, positions });
  }
  return out;
}

/** Adds the words of a value (recursing into arrays, skipping objects and null) and returns the next free position. */
function collectValue(value: unknown, position: number, words: string[], positions: number[], options: DocumentAnalysisOptions): number {
  if (position >= MAX_POSITION) return position;
  if (typeof value === 'string') return collectText(value, position, words, positions, options);
  if (typeof value === 'number' || typeof value === 'boolean') return collectText(String(value), position, words, positions, options);
  if (Array.isArray(value)) {
    let next = position;
    for (const element of value) next = collectValue(element, next, words, positions, options);
    return next;
  }
  return position;
}

function collectText(text: string, position: number, words: string[], positions: number[], options: DocumentAnalysisOptions): number {
  // Stop words take a position but are not indexed. Array elements are separated as if by a hard
  // separator: the returned position leaves that gap after the text.
  return tokenizeInto(text, position, options.classify ?? defaultClassifier, words, positions, options.stopWords);
}

function isPlainObject(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
