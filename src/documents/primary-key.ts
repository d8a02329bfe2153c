// Choosing the primary key of a document addition (formats.md §3), as milli's
// retrieve_or_guess_primary_key: the index's key wins and must not be contradicted; without one,
// the addition's key is taken; without that, it is inferred from the first document.
import { SkeinError } from '../errors/index.js';

/**
 * @param stored the index's primary key, null when not set yet
 * @param given the `primaryKey` of the addition, null when not given
 * @param firstDocument the first document of the payload, undefined for an empty payload
 */
export function resolvePrimaryKey(stored: string | null, given: string | null, firstDocument: Record<string, unknown> | undefined): string {
  if (stored !== null) {
    if (given !== null && given !== stored) throw primaryKeyCannotBeChanged(stored);
    return stored;
  }
  if (given !== null) return given;
  return inferPrimaryKey(firstDocument);
}

/** Exactly one top-level key of the first document whose lowercase form ends with `id`. */
export function inferPrimaryKey(firstDocument: Record<string, unknown> | undefined): string {
  const candidates = firstDocument === undefined ? [] : Object.keys(firstDocument).filter((key) => key.toLowerCase().endsWith('id')).sort();
  if (candidates.length === 1) return candidates[0];
  if (candidates.length === 0) {
    throw new SkeinError('index_primary_key_no_candidate_found',
      'The primary key inference failed as the engine did not find any field ending with `id` in its name. Please specify the primary key manually using the `primaryKey` query parameter.');
  }
  throw new SkeinError('index_primary_key_multiple_candidates_found',
    `The primary key inference failed as the engine found ${candidates.length} fields ending with \`id\` in their names: '${candidates[0]}' and '${candidates[1]}'. Please specify the primary key manually using the \`primaryKey\` query parameter.`);
}

export function primaryKeyCannotBeChanged(stored: string): SkeinError {
  return new SkeinError('index_primary_key_already_exists', `Index already has a primary key: \`${stored}\`.`);
}
