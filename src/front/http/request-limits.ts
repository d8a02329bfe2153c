// Every size a request controls, bounded in one place (README "Limits"). Meilisearch leaves most of
// these unbounded; here a 20 MiB highlightPreTag once ran a shard worker out of heap, and 65,536
// `fields` held the front thread 22.8 s. Past a bound the request is a 400 with the parameter's own
// error code; the bounds are far above what any ordinary client sends.
import { SkeinError, type ErrorCode } from '../../errors/index.js';

export const REQUEST_LIMITS = {
  /** highlightPreTag, highlightPostTag, cropMarker: characters each. */
  tagChars: 1024,
  /** q of a search or a facet search, facetQuery: characters (Meilisearch searches the first 10 words of q). */
  queryChars: 16_384,
  /** facetQuery of a facet search: characters. */
  facetQueryChars: 1024,
  /** A filter: characters of its string, or of all the strings of its array form together. */
  filterChars: 100_000,
  /** A filter's array form: strings in all (outer and inner arrays together). */
  filterArrayElements: 2000,
  /**
   * Names one list may hold: attributesToRetrieve/Highlight/Crop/SearchOn, facets, sort, locales,
   * documents `fields`.
   */
  listEntries: 1000,
  /**
   * Attribute lists of settings (searchable, filterable with their rules' patterns, sortable, displayed,
   * typoTolerance.disableOnAttributes, localizedAttributes' patterns, faceting.sortFacetValuesBy): entries.
   */
  settingsAttributes: 10_000,
  /** Word lists of settings (stopWords, dictionary, separator tokens, synonyms, disableOnWords): entries. */
  settingsWords: 100_000,
  /** Characters of one attribute name, sort criterion or locale in such a list. */
  nameChars: 1024,
  /** The Rhai function of POST /documents/edit: characters (the interpreter's work per document is bounded apart). */
  editFunctionChars: 65_536,
  /** Queries of one multi-search. */
  multiSearchQueries: 1000,
  /** Distinct foreign documents read to hydrate one search answer's hits (foreignKeys; further ids stay ids). */
  hydratedForeignIds: 1000,
  /** `_foreign` conditions of one filter (each is a search of its foreign index: front/search/foreign-filter.ts). */
  foreignConditions: 100,
} as const;

/** `Invalid value at `.path`` for a JSON body, `Invalid value in parameter `name`` for a query string. */
export type Where = { kind: 'body'; path: string } | { kind: 'query'; name: string };

function location(where: Where): string {
  if (where.kind === 'query') return `Invalid value in parameter \`${where.name}\``;
  // The root of a body (a settings sub-route's bare list) is not named, as deserr does.
  return where.path === '' || where.path === '.' ? 'Invalid value' : `Invalid value at \`${where.path}\``;
}

export function checkTextLength(code: ErrorCode, where: Where, text: string, max: number): void {
  if (text.length > max) {
    throw new SkeinError(code, `${location(where)}: the value is ${text.length} characters long, more than the ${max} this server accepts.`);
  }
}

/** A list's length, then each entry's (entries that are not strings are the type checks' business). */
export function checkListLength(code: ErrorCode, where: Where, list: readonly unknown[], maxEntries: number,
  maxEntryChars: number = REQUEST_LIMITS.nameChars): void {
  if (list.length > maxEntries) {
    throw new SkeinError(code, `${location(where)}: the list has ${list.length} entries, more than the ${maxEntries} this server accepts.`);
  }
  list.forEach((entry, i) => {
    if (typeof entry === 'string') {
      checkTextLength(code, where.kind === 'body' ? { kind: 'body', path: `${where.path}[${i}]` } : where, entry, maxEntryChars);
    }
  });
}

/** A filter's string or array form: characters in all, strings in all. */
export function checkFilterSize(code: ErrorCode, where: Where, filter: unknown): void {
  if (typeof filter === 'string') {
    checkTextLength(code, where, filter, REQUEST_LIMITS.filterChars);
    return;
  }
  if (!Array.isArray(filter)) return;
  let elements = 0;
  let chars = 0;
  const count = (item: unknown) => {
    elements++;
    if (typeof item === 'string') chars += item.length;
  };
  for (const member of filter) {
    if (Array.isArray(member)) member.forEach(count);
    else count(member);
  }
  if (elements > REQUEST_LIMITS.filterArrayElements) {
    throw new SkeinError(code, `${location(where)}: the filter has ${elements} expressions, more than the ${REQUEST_LIMITS.filterArrayElements} this server accepts.`);
  }
  if (chars > REQUEST_LIMITS.filterChars) {
    throw new SkeinError(code, `${location(where)}: the filter is ${chars} characters long, more than the ${REQUEST_LIMITS.filterChars} this server accepts.`);
  }
}
