// Random requests for the fuzz test (issue 18): filters from the grammar, search / multi-search /
// facet-search / documents / settings / task bodies with valid and invalid values, and garbage
// mutations of their bytes. Pure: a SeededRandom in, a request out, so a seed replays a stream.
import { isUtf8 } from 'node:buffer';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { SeededRandom } from '../../bench/seeded-random.js';
import { CORPUS_FIELDS } from './corpus.js';

/**
 * Input classes that reproduced issue 18's findings (each fixed since, with its own test); on by default
 * in `npm test` and `npm run fuzz`, each switched off by name (`SKEIN_FUZZ_CATEGORIES=-deepJson,...`,
 * or `none`).
 */
export const KNOWN_FINDING_CATEGORIES = {
  /** highlightPreTag / highlightPostTag / cropMarker of ~20 MiB: a shard worker dies (bounds). */
  hugeHighlightTags: 'multi-MiB highlight tags kill a shard worker',
  /** 100,000 levels of [ or { in a JSON body: 500 instead of a 400 (bounds). */
  deepJson: '100,000-level nested JSON answers 500',
  /** Integer ids above 2^53 (2^53+1 and 2^53 collapse into one document) (ingest). */
  bigIntIds: 'integer ids above 2^53 merge documents',
  /** Bytes that are not UTF-8 inside JSON / NDJSON / CSV bodies (ingest). */
  invalidUtf8: 'invalid UTF-8 is accepted',
  /** documents/fetch and GET documents with limit/offset 2^32 and above (bounds). */
  fetchLimitWrap: 'documents/fetch limit 2^32 wraps',
  /** Strings of 64 KiB to 2 MiB in places an error message echoes (bounds). */
  hugeEcho: 'error bodies echo huge values',
  /** Filters that cost seconds per search (long OR chains, big IN lists on every field) (deadline). */
  heavyFilters: 'heavy filters stall other clients',
} as const;

export type KnownFindingCategory = keyof typeof KNOWN_FINDING_CATEGORIES;

export interface FuzzContext {
  /** The index holding the corpus: read-only for the fuzzer, so its answers can be compared before and after. */
  readIndex: string;
  /** Indexes the fuzzer may write to, create, delete and reconfigure. */
  writeIndexes: string[];
  /** Corpus words, for queries that match something. */
  words: string[];
  /** Switched-on known-finding categories. */
  enabled: ReadonlySet<KnownFindingCategory>;
}

export interface FuzzRequest {
  kind: string;
  method: string;
  path: string;
  body?: Uint8Array;
  contentType?: string;
  /** Extra request headers (Content-Encoding). */
  headers?: Record<string, string>;
  /** What the answer must be beyond the general rules (set only by known-finding categories). */
  expect?: { rejected?: string; resultCount?: number };
}

const ATTRIBUTE_NOISE = ['unknown', 'nope.nested', '', ' ', 'name ', '_geoPoint', '_geoDistance', '*', 'a.b.c.d.e', 'ünïcødé', '"quoted"', 'id.id', '_id', '__proto__', 'constructor', 'NOT', 'AND'];

// ---------------------------------------------------------------------------------------------
// small values

/** Percent-encodes the UTF-8 bytes of a text (a lone surrogate becomes U+FFFD; encodeURIComponent would throw). */
export function encodeQuery(text: string): string {
  let encoded = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    encoded += /[A-Za-z0-9_.~-]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return encoded;
}

export function randomWord(rng: SeededRandom, context: FuzzContext): string {
  return context.words.length > 0 && rng.chance(0.85) ? rng.pick(context.words) : randomAscii(rng, rng.int(0, 12));
}

export function randomAscii(rng: SeededRandom, length: number): string {
  let text = '';
  for (let i = 0; i < length; i++) text += String.fromCharCode(rng.int(32, 126));
  return text;
}

function randomUnicode(rng: SeededRandom, length: number): string {
  const pool = ['é', 'ß', '中', '文', '😀', '\u0000', '\u200b', '\ud7ff', 'Ω', '\t', '\n', '\\', '"', "'", '`', 'ﬁ', 'İ'];
  let text = '';
  for (let i = 0; i < length; i++) text += rng.chance(0.5) ? rng.pick(pool) : String.fromCharCode(rng.int(32, 126));
  return text;
}

function longString(rng: SeededRandom, context: FuzzContext): string {
  const length = context.enabled.has('hugeEcho') && rng.chance(0.3) ? rng.int(64 * 1024, 2 * 1024 * 1024) : rng.int(100, 4096);
  return 'x'.repeat(length);
}

function randomNumber(rng: SeededRandom): number | string {
  switch (rng.int(0, 9)) {
    case 0: return rng.int(-10, 10);
    case 1: return rng.int(0, 3_000_000);
    case 2: return Math.round(rng.next() * 1e6) / 100;
    case 3: return -rng.int(0, 1e9);
    case 4: return rng.pick([0, -0, 1e-300, 1e300, 2 ** 31, 2 ** 32, 2 ** 53 - 1, -(2 ** 53), 0.1]);
    // Spelled as text so that the JSON carries them unrounded.
    case 5: return rng.pick(['1e400', '-1e400', '99999999999999999999999', '0.0000000000000000000000001', '1E5', '-0', '1.7976931348623157e309']);
    case 6: return rng.pick(['NaN', 'Infinity', '-Infinity', '0x10', '1_000', '+1', '.5', '5.', '01']);
    default: return rng.int(0, 100);
  }
}

/** Sets an own field even when named `__proto__`, so the JSON carries it (and no prototype changes). */
function setField(object: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A JSON value of a random type (for wrong-type parameters). */
export function randomJsonValue(rng: SeededRandom, context: FuzzContext, depth = 0): unknown {
  switch (rng.int(0, depth > 2 ? 5 : 8)) {
    case 0: return null;
    case 1: return rng.chance(0.5);
    case 2: { const n = randomNumber(rng); return typeof n === 'number' ? n : rng.int(-5, 5); }
    case 3: return randomWord(rng, context);
    case 4: return randomUnicode(rng, rng.int(0, 10));
    case 5: return rng.chance(0.1) ? longString(rng, context) : '';
    case 6: return Array.from({ length: rng.int(0, 4) }, () => randomJsonValue(rng, context, depth + 1));
    default: {
      const object: Record<string, unknown> = {};
      for (let i = rng.int(0, 3); i > 0; i--) setField(object, rng.pick([...CORPUS_FIELDS, ...ATTRIBUTE_NOISE]), randomJsonValue(rng, context, depth + 1));
      return object;
    }
  }
}

export function randomAttribute(rng: SeededRandom): string {
  return rng.chance(0.8) ? rng.pick(CORPUS_FIELDS) : rng.pick(ATTRIBUTE_NOISE);
}

// ---------------------------------------------------------------------------------------------
// filters

function filterValue(rng: SeededRandom, context: FuzzContext): string {
  switch (rng.int(0, 7)) {
    case 0: case 1: return String(randomNumber(rng));
    case 2: return rng.pick(['true', 'false', 'null', 'NULL']);
    case 3: return `'${randomWord(rng, context).replace(/'/g, "\\'")}'`;
    case 4: return `"${randomWord(rng, context).replace(/"/g, '\\"')}"`;
    case 5: return randomWord(rng, context).replace(/[^A-Za-z0-9_.@/-]/g, '') || 'x';
    case 6: return `"${randomUnicode(rng, rng.int(0, 6)).replace(/["\\]/g, '')}"`;
    default: return rng.pick(["''", '""', '"with \\" quote"', "'it\\'s'", '"a b c"', 'web', 'cli', '"level 2"']);
  }
}

function filterAttribute(rng: SeededRandom): string {
  const attribute = randomAttribute(rng);
  if (rng.chance(0.1)) return `"${attribute.replace(/"/g, '')}"`;
  if (rng.chance(0.05)) return `'${attribute.replace(/'/g, '')}'`;
  return attribute === '' || /\s/.test(attribute) ? rng.pick(CORPUS_FIELDS) : attribute;
}

function coordinate(rng: SeededRandom, limit: number): string {
  return rng.chance(0.9) ? (rng.next() * 2 * limit - limit).toFixed(rng.int(0, 5)) : String(randomNumber(rng));
}

function geoFilter(rng: SeededRandom): string {
  switch (rng.int(0, 5)) {
    case 0: case 1: return `_geoRadius(${coordinate(rng, 90)}, ${coordinate(rng, 180)}, ${rng.chance(0.8) ? rng.int(0, 5_000_000) : randomNumber(rng)})`;
    case 2: case 3: return `_geoBoundingBox([${coordinate(rng, 90)}, ${coordinate(rng, 180)}], [${coordinate(rng, 90)}, ${coordinate(rng, 180)}])`;
    case 4: return `_geoPolygon([${coordinate(rng, 90)}, ${coordinate(rng, 180)}], [${coordinate(rng, 90)}, ${coordinate(rng, 180)}], [${coordinate(rng, 90)}, ${coordinate(rng, 180)}])`;
    default: return rng.pick(['_geoRadius(1, 2)', '_geoRadius()', '_geoRadius(a, b, c)', '_geoBoundingBox([1,2])', '_geoBoundingBox(1, 2, 3, 4)', '_geoRadius(1, 2, 3, 4)', '_geo(1,2)', '_geoRadius(91, 0, 10)', '_geoBoundingBox([0, 181], [0, 0])']);
  }
}

function condition(rng: SeededRandom, context: FuzzContext): string {
  const attribute = filterAttribute(rng);
  switch (rng.int(0, 13)) {
    case 0: return `${attribute} = ${filterValue(rng, context)}`;
    case 1: return `${attribute} != ${filterValue(rng, context)}`;
    case 2: return `${attribute} ${rng.pick(['>', '>=', '<', '<='])} ${filterValue(rng, context)}`;
    case 3: return `${attribute} ${filterValue(rng, context)} TO ${filterValue(rng, context)}`;
    case 4: return `${attribute} ${rng.pick(['EXISTS', 'NOT EXISTS'])}`;
    case 5: return `${attribute} ${rng.pick(['IS NULL', 'IS NOT NULL', 'IS EMPTY', 'IS NOT EMPTY'])}`;
    case 6: {
      const values = Array.from({ length: rng.int(0, 6) }, () => filterValue(rng, context));
      return `${attribute} ${rng.pick(['IN', 'NOT IN'])} [${values.join(rng.pick([', ', ',', ' , ']))}${rng.chance(0.1) ? ',' : ''}]`;
    }
    case 7: return geoFilter(rng);
    case 8: return `${attribute} ${rng.pick(['CONTAINS', 'NOT CONTAINS', 'STARTS WITH', 'NOT STARTS WITH'])} ${filterValue(rng, context)}`;
    case 9: return `downloads ${rng.pick(['>', '<', '>=', '<='])} ${rng.int(0, 1_000_000)}`;
    case 10: return `category = ${rng.pick(['web', 'cli', 'data', 'test', 'ui'])}`;
    case 11: return `${attribute}${rng.pick(['=', '!=', '>', '<'])}${filterValue(rng, context)}`;
    case 12: return `${attribute} ${rng.pick(['==', '=>', '<>', '!', 'IS', 'IN', 'TO', 'NOT', 'LIKE', '~'])} ${filterValue(rng, context)}`;
    default: return `${attribute} = ${filterValue(rng, context)}`;
  }
}

export function randomFilterExpression(rng: SeededRandom, context: FuzzContext, depth = 0): string {
  if (depth > 4 || rng.chance(0.45)) return condition(rng, context);
  switch (rng.int(0, 5)) {
    case 0: return `NOT ${randomFilterExpression(rng, context, depth + 1)}`;
    case 1: return `(${randomFilterExpression(rng, context, depth + 1)})`;
    case 2: return `${randomFilterExpression(rng, context, depth + 1)} OR ${randomFilterExpression(rng, context, depth + 1)}`;
    case 3: return `NOT (${randomFilterExpression(rng, context, depth + 1)} AND ${randomFilterExpression(rng, context, depth + 1)})`;
    default: return `${randomFilterExpression(rng, context, depth + 1)} AND ${randomFilterExpression(rng, context, depth + 1)}`;
  }
}

/** Garbage made from a valid-looking string: truncated, a character replaced or inserted, tokens repeated. */
export function mutateText(rng: SeededRandom, text: string, context: FuzzContext): string {
  if (text.length === 0) return rng.pick(['(', ')', '[', ']', '"', "'", 'NOT', 'AND']);
  const at = rng.int(0, text.length);
  switch (rng.int(0, 7)) {
    case 0: return text.slice(0, at);
    case 1: return text.slice(0, at) + rng.pick(['(', ')', '[', ']', '"', "'", ',', ' AND ', ' OR ', ' NOT ', '\\', '=', ' TO ', '\u0000', '😀', '\ud800']) + text.slice(at);
    case 2: return text.slice(0, at) + text.slice(at + 1);
    case 3: return text.slice(0, at) + String.fromCharCode(rng.int(32, 126)) + text.slice(at + 1);
    case 4: return `${'('.repeat(rng.int(1, 60))}${text}${rng.chance(0.5) ? ')'.repeat(rng.int(0, 60)) : ''}`;
    case 5: return `${'NOT '.repeat(rng.int(1, 50))}${text}`;
    case 6: return text + text.slice(at);
    default: return text.slice(0, at) + longString(rng, context).slice(0, 200) + text.slice(at);
  }
}

function heavyFilter(rng: SeededRandom): string {
  if (rng.chance(0.5)) return Array.from({ length: rng.int(2000, 8000) }, (_, i) => `downloads = ${i} OR name = "${i}"`).join(' OR ');
  return `id IN [${Array.from({ length: rng.int(20_000, 100_000) }, (_, i) => i).join(',')}]`;
}

/** A value for a `filter` parameter: mostly grammar strings, sometimes the array form, garbage or wrong types. */
export function randomFilter(rng: SeededRandom, context: FuzzContext): unknown {
  if (context.enabled.has('heavyFilters') && rng.chance(0.05)) return heavyFilter(rng);
  if (rng.chance(0.3)) return cleanFilter(rng, context);
  const roll = rng.next();
  if (roll < 0.55) return randomFilterExpression(rng, context);
  if (roll < 0.75) return mutateText(rng, randomFilterExpression(rng, context), context);
  if (roll < 0.9) {
    return Array.from({ length: rng.int(0, 4) }, () =>
      rng.chance(0.5) ? condition(rng, context) : Array.from({ length: rng.int(0, 3) }, () => (rng.chance(0.9) ? condition(rng, context) : randomJsonValue(rng, context))),
    );
  }
  if (roll < 0.95) return rng.pick(['', '   ', '()', 'NOT', 'AND', 'OR', '[]', 'id =', '= 1', 'id 1 TO', '_geoRadius(', '"unterminated', "'x"]);
  return randomJsonValue(rng, context);
}

// ---------------------------------------------------------------------------------------------
// search bodies

function randomList(rng: SeededRandom, make: () => unknown, max = 4): unknown {
  if (rng.chance(0.1)) return randomJsonValue(rng, { words: [], readIndex: '', writeIndexes: [], enabled: new Set() });
  return Array.from({ length: rng.int(0, max) }, make);
}

function attributeList(rng: SeededRandom, withStar = true): unknown {
  return randomList(rng, () => (withStar && rng.chance(0.15) ? '*' : rng.chance(0.1) ? `${randomAttribute(rng)}:${rng.int(0, 20)}` : randomAttribute(rng)));
}

function sortValue(rng: SeededRandom): unknown {
  return randomList(rng, () => {
    switch (rng.int(0, 5)) {
      case 0: case 1: return `${rng.pick(['downloads', 'name', 'ratio', 'id'])}:${rng.pick(['asc', 'desc'])}`;
      case 2: return `_geoPoint(${coordinate(rng, 90)}, ${coordinate(rng, 180)}):${rng.pick(['asc', 'desc', 'up'])}`;
      case 3: return `${randomAttribute(rng)}:${rng.pick(['asc', 'desc', 'ASC', '', 'sideways'])}`;
      case 4: return rng.pick(['', ':', 'asc', 'downloads', '_geoPoint(0):asc', '_geoPoint(0,0,0):asc', 'downloads:asc:desc']);
      default: return randomJsonValue(rng, { words: [], readIndex: '', writeIndexes: [], enabled: new Set() });
    }
  }, 3);
}

function maybeInvalid(rng: SeededRandom, context: FuzzContext, valid: () => unknown): unknown {
  return rng.chance(0.85) ? valid() : randomJsonValue(rng, context);
}

function tag(rng: SeededRandom, context: FuzzContext): unknown {
  if (context.enabled.has('hugeHighlightTags') && rng.chance(0.05)) return '<'.repeat(20 * 1024 * 1024);
  return rng.pick(['<em>', '</em>', '', '**', '<mark class="x">', '\u0000', '😀', '"', '\\']);
}

const SEARCH_PARAMETERS: Array<[string, (rng: SeededRandom, context: FuzzContext) => unknown]> = [
  ['q', (rng, context) => rng.chance(0.1) ? longString(rng, context) : Array.from({ length: rng.int(0, 4) }, () => randomWord(rng, context)).join(' ')],
  ['offset', (rng) => rng.int(0, 2000)],
  ['limit', (rng) => rng.int(0, 1200)],
  ['page', (rng) => rng.int(0, 30)],
  ['hitsPerPage', (rng) => rng.int(0, 200)],
  ['filter', (rng, context) => randomFilter(rng, context)],
  ['facets', (rng) => attributeList(rng)],
  ['attributesToRetrieve', (rng) => attributeList(rng)],
  ['attributesToCrop', (rng) => attributeList(rng)],
  ['cropLength', (rng) => rng.int(0, 50)],
  ['cropMarker', (rng, context) => tag(rng, context)],
  ['attributesToHighlight', (rng) => attributeList(rng)],
  ['highlightPreTag', (rng, context) => tag(rng, context)],
  ['highlightPostTag', (rng, context) => tag(rng, context)],
  ['showMatchesPosition', (rng) => rng.chance(0.5)],
  ['showRankingScore', (rng) => rng.chance(0.5)],
  ['showRankingScoreDetails', (rng) => rng.chance(0.5)],
  ['showPerformanceDetails', (rng) => rng.chance(0.5)],
  ['sort', (rng) => sortValue(rng)],
  ['matchingStrategy', (rng) => rng.pick(['last', 'all', 'frequency', 'LAST', 'none', ''])],
  ['distinct', (rng) => rng.chance(0.7) ? rng.pick(['category', 'scoped', 'nested.level', 'maybe', 'tags']) : randomAttribute(rng)],
  ['attributesToSearchOn', (rng) => attributeList(rng)],
  ['rankingScoreThreshold', (rng) => rng.pick([0, 0.5, 1, 0.99, -0.1, 1.1, 2])],
  ['locales', (rng) => randomList(rng, () => rng.pick(['eng', 'fra', 'jpn', 'cmn', 'xx', '', 'english']))],
  ['hybrid', (rng, context) => rng.chance(0.5) ? { embedder: rng.pick(['default', 'x', '']), semanticRatio: rng.pick([0, 0.5, 1, 2]) } : randomJsonValue(rng, context)],
  ['vector', (rng) => Array.from({ length: rng.int(0, 4) }, () => rng.next())],
  ['retrieveVectors', (rng) => rng.chance(0.5)],
  ['media', (rng, context) => randomJsonValue(rng, context)],
  ['unknownParameter', (rng, context) => randomJsonValue(rng, context)],
];

const FILTERABLE = ['id', 'name', 'version', 'downloads', 'tags', 'category', 'scoped', 'ratio', 'nested.level', 'nested.deep.flag', 'maybe'];

/** A filter on filterable attributes only, with well-formed values: reaches evaluation, not the parser's errors. */
function cleanFilter(rng: SeededRandom, context: FuzzContext, depth = 0): string {
  if (depth > 3 || rng.chance(0.5)) {
    const attribute = rng.pick(FILTERABLE);
    const number = () => String(rng.pick([rng.int(0, 100), rng.int(0, 2_000_000), Math.round(rng.next() * 1400) / 100]));
    const word = () => JSON.stringify(rng.chance(0.5) ? randomWord(rng, context) : rng.pick(['web', 'cli', 'data', 'test', 'ui', 'level 1', 'true', 'false', '']));
    switch (rng.int(0, 8)) {
      case 0: return `${attribute} = ${rng.chance(0.5) ? number() : word()}`;
      case 1: return `${attribute} != ${rng.chance(0.5) ? number() : word()}`;
      case 2: return `${attribute} ${rng.pick(['>', '>=', '<', '<='])} ${number()}`;
      case 3: return `${attribute} ${number()} TO ${number()}`;
      case 4: return `${attribute} ${rng.pick(['EXISTS', 'NOT EXISTS', 'IS NULL', 'IS NOT NULL', 'IS EMPTY', 'IS NOT EMPTY'])}`;
      case 5: return `${attribute} ${rng.pick(['IN', 'NOT IN'])} [${Array.from({ length: rng.int(1, 5) }, () => (rng.chance(0.5) ? number() : word())).join(', ')}]`;
      case 6: return geoFilter(rng);
      default: return `${attribute} = ${word()}`;
    }
  }
  const left = cleanFilter(rng, context, depth + 1);
  const right = cleanFilter(rng, context, depth + 1);
  return rng.pick([`${left} AND ${right}`, `${left} OR ${right}`, `NOT (${left})`, `(${left} OR ${right}) AND ${cleanFilter(rng, context, depth + 1)}`]);
}

/** A search body whose every parameter is valid, so the engine (not validation) answers. */
export function cleanSearchBody(rng: SeededRandom, context: FuzzContext): Record<string, unknown> {
  const body: Record<string, unknown> = { q: Array.from({ length: rng.int(0, 3) }, () => randomWord(rng, context)).join(' ') };
  if (rng.chance(0.5)) body.filter = rng.chance(0.8) ? cleanFilter(rng, context) : [cleanFilter(rng, context), [cleanFilter(rng, context), cleanFilter(rng, context)]];
  if (rng.chance(0.3)) body.facets = rng.chance(0.2) ? ['*'] : [rng.pick(FILTERABLE), rng.pick(FILTERABLE)];
  if (rng.chance(0.3)) body.sort = [`${rng.pick(['downloads', 'name', 'ratio', 'id'])}:${rng.pick(['asc', 'desc'])}`, ...(rng.chance(0.3) ? [`_geoPoint(${coordinate(rng, 90)}, ${coordinate(rng, 180)}):asc`] : [])];
  if (rng.chance(0.3)) { if (rng.chance(0.5)) { body.offset = rng.int(0, 50); body.limit = rng.int(0, 50); } else { body.page = rng.int(1, 5); body.hitsPerPage = rng.int(0, 30); } }
  if (rng.chance(0.2)) body.attributesToHighlight = rng.pick([['*'], ['name', 'summary'], ['tags']]);
  if (rng.chance(0.2)) { body.attributesToCrop = rng.pick([['summary'], ['summary:3'], ['*']]); body.cropLength = rng.int(0, 20); }
  if (rng.chance(0.2)) body.attributesToRetrieve = rng.pick([['id'], ['name', '_geo'], ['*'], ['nested.level']]);
  if (rng.chance(0.15)) body.showMatchesPosition = true;
  if (rng.chance(0.15)) body.showRankingScore = true;
  if (rng.chance(0.1)) body.showRankingScoreDetails = true;
  if (rng.chance(0.1)) body.matchingStrategy = rng.pick(['last', 'all', 'frequency']);
  if (rng.chance(0.1)) body.distinct = rng.pick(['category', 'scoped', 'nested.level', 'maybe', 'tags']);
  if (rng.chance(0.1)) body.attributesToSearchOn = rng.pick([['name'], ['summary', 'tags'], ['*']]);
  if (rng.chance(0.1)) body.rankingScoreThreshold = rng.pick([0, 0.2, 0.5, 0.9]);
  return body;
}

export function randomSearchBody(rng: SeededRandom, context: FuzzContext): Record<string, unknown> {
  if (context.enabled.has('hugeHighlightTags') && rng.chance(0.03)) {
    // Tags only cost when something is highlighted or cropped: ask for both on a matching word.
    const huge = rng.pick(['<', '</em>', '\u00e9']).repeat(rng.int(4, 20) * 1024 * 1024 / 4);
    return { q: randomWord(rng, context), attributesToHighlight: ['*'], attributesToCrop: ['summary'], [rng.pick(['highlightPreTag', 'highlightPostTag', 'cropMarker'])]: huge };
  }
  if (rng.chance(0.35)) return cleanSearchBody(rng, context);
  const body: Record<string, unknown> = {};
  const density = rng.pick([0.05, 0.15, 0.3]);
  for (const [name, make] of SEARCH_PARAMETERS) {
    if (name === 'unknownParameter' || name === 'hybrid' || name === 'vector' || name === 'media' || name === 'retrieveVectors') {
      if (!rng.chance(0.02)) continue;
    } else if (name !== 'q' && !rng.chance(density)) continue;
    body[name] = maybeInvalid(rng, context, () => make(rng, context));
  }
  return body;
}

/** The same parameters as a GET query string (lists comma-joined, as GET /search takes them). */
function searchQueryString(rng: SeededRandom, body: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(body)) {
    let text: string;
    if (Array.isArray(value)) text = value.map((item) => (typeof item === 'string' ? item : JSON.stringify(item))).join(',');
    else if (typeof value === 'string') text = value;
    else text = JSON.stringify(value);
    // A value of megabytes tests nothing more in a request head than 512 KiB does (heads past the
    // server's bound are refused either way), and a 60 MB URL held the client's event loop for tens of
    // seconds (fetch's URL parsing), which in-process fuzz runs charged to the server. Cut after the
    // draws, so the seed's other requests stay the same.
    if (text.length > MAX_QUERY_VALUE_CHARS) text = text.slice(0, MAX_QUERY_VALUE_CHARS);
    parts.push(`${rng.chance(0.02) ? name.toUpperCase() : name}=${rng.chance(0.03) ? text : encodeQuery(text)}`);
  }
  return parts.join('&');
}

const MAX_QUERY_VALUE_CHARS = 512 * 1024;

// ---------------------------------------------------------------------------------------------
// documents and settings

function randomDocument(rng: SeededRandom, context: FuzzContext, primaryKey = 'id'): Record<string, unknown> {
  const document: Record<string, unknown> = {};
  const idRoll = rng.next();
  if (idRoll < 0.8) document[primaryKey] = rng.chance(0.7) ? rng.int(0, 500) : `doc-${rng.int(0, 500)}`;
  else if (idRoll < 0.9) document[primaryKey] = rng.pick(['', 'bad id!', 'ü', -1, 1.5, true, null, [], {}, 'a'.repeat(600), 2 ** 53 - 1]);
  else if (context.enabled.has('bigIntIds') && idRoll < 0.95) document[primaryKey] = rng.pick([2 ** 53, 2 ** 53 + 2, '9007199254740993']);
  for (let i = rng.int(0, 6); i > 0; i--) setField(document, rng.pick([...CORPUS_FIELDS, ...ATTRIBUTE_NOISE, randomAscii(rng, 4)]), randomJsonValue(rng, context));
  if (rng.chance(0.3)) document.summary = Array.from({ length: rng.int(1, 30) }, () => randomWord(rng, context)).join(' ');
  if (rng.chance(0.1)) document._geo = rng.chance(0.7) ? { lat: Number(coordinate(rng, 90)), lng: Number(coordinate(rng, 180)) } : randomJsonValue(rng, context);
  return document;
}

function csvField(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? '';
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A documents payload (JSON, NDJSON or CSV) with its content type. */
function documentPayload(rng: SeededRandom, context: FuzzContext): { text: string; contentType: string } {
  const documents = Array.from({ length: rng.int(0, 20) }, () => randomDocument(rng, context));
  const format = rng.int(0, 2);
  if (format === 0) {
    const value = rng.chance(0.9) ? documents : rng.chance(0.5) ? documents[0] ?? {} : randomJsonValue(rng, context);
    return { text: JSON.stringify(value), contentType: rng.pick(['application/json', 'application/json; charset=utf-8']) };
  }
  if (format === 1) return { text: documents.map((document) => JSON.stringify(document)).join(rng.pick(['\n', '\r\n', '\n\n'])), contentType: 'application/x-ndjson' };
  const columns = [...new Set(documents.flatMap((document) => Object.keys(document)))];
  const header = columns.map((column) => (rng.chance(0.1) ? `${column}:${rng.pick(['number', 'string', 'boolean', 'bad'])}` : column));
  const lines = [header.map(csvField).join(','), ...documents.map((document) => columns.map((column) => csvField(document[column] ?? '')).join(','))];
  return { text: lines.join('\n'), contentType: rng.pick(['text/csv', 'text/csv; charset=utf-8']) };
}

const SETTING_ROUTES: Array<[string, string, (rng: SeededRandom, context: FuzzContext) => unknown]> = [
  ['displayed-attributes', 'PUT', (rng) => attributeList(rng)],
  ['searchable-attributes', 'PUT', (rng) => attributeList(rng)],
  ['filterable-attributes', 'PUT', (rng) => rng.chance(0.8) ? attributeList(rng, false) : [{ attributePatterns: attributeList(rng, false), features: { facetSearch: rng.chance(0.5), filter: { equality: rng.chance(0.5), comparison: rng.chance(0.5) } } }]],
  ['sortable-attributes', 'PUT', (rng) => attributeList(rng, false)],
  ['ranking-rules', 'PUT', (rng) => randomList(rng, () => rng.pick(['words', 'typo', 'proximity', 'attribute', 'sort', 'exactness', 'downloads:desc', 'name:asc', 'bad', 'asc(downloads)', 'downloads:up', '']), 7)],
  ['stop-words', 'PUT', (rng, context) => randomList(rng, () => randomWord(rng, context))],
  ['non-separator-tokens', 'PUT', (rng) => randomList(rng, () => rng.pick(['@', '#', '-', '_', '', '  ']))],
  ['separator-tokens', 'PUT', (rng) => randomList(rng, () => rng.pick(['@', '#', '-', '_', '', '|']))],
  ['dictionary', 'PUT', (rng, context) => randomList(rng, () => randomWord(rng, context))],
  ['synonyms', 'PUT', (rng, context) => {
    const synonyms: Record<string, unknown> = {};
    for (let i = rng.int(0, 4); i > 0; i--) setField(synonyms, randomWord(rng, context), maybeInvalid(rng, context, () => [randomWord(rng, context), randomWord(rng, context)]));
    return synonyms;
  }],
  ['distinct-attribute', 'PUT', (rng) => rng.chance(0.3) ? null : randomAttribute(rng)],
  ['proximity-precision', 'PUT', (rng) => rng.pick(['byWord', 'byAttribute', 'byNothing', ''])],
  ['typo-tolerance', 'PATCH', (rng) => ({ enabled: rng.chance(0.5), minWordSizeForTypos: { oneTypo: rng.int(0, 10), twoTypos: rng.int(0, 12) }, disableOnWords: ['react'], disableOnAttributes: [randomAttribute(rng)], disableOnNumbers: rng.chance(0.5) })],
  ['faceting', 'PATCH', (rng) => ({ maxValuesPerFacet: rng.int(0, 2000), sortFacetValuesBy: { '*': rng.pick(['alpha', 'count', 'random']) } })],
  ['pagination', 'PATCH', (rng) => ({ maxTotalHits: rng.int(0, 5000) })],
  ['embedders', 'PATCH', (rng, context) => randomJsonValue(rng, context)],
  ['search-cutoff-ms', 'PUT', (rng) => rng.pick([null, 0, 1, 150, 1500, -1])],
  ['localized-attributes', 'PUT', (rng) => [{ attributePatterns: attributeList(rng), locales: [rng.pick(['eng', 'fra', 'xx'])] }]],
  ['facet-search', 'PUT', (rng) => rng.chance(0.5)],
  ['prefix-search', 'PUT', (rng) => rng.pick(['indexingTime', 'disabled', 'sometimes'])],
];

function camel(route: string): string {
  return route.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

function randomSettings(rng: SeededRandom, context: FuzzContext): Record<string, unknown> {
  const settings: Record<string, unknown> = {};
  for (const [route, , make] of SETTING_ROUTES) if (rng.chance(0.15)) settings[camel(route)] = maybeInvalid(rng, context, () => make(rng, context));
  if (rng.chance(0.05)) settings.notASetting = true;
  return settings;
}

// ---------------------------------------------------------------------------------------------
// garbage on bytes

function deepNesting(rng: SeededRandom, context: FuzzContext): string {
  const depth = context.enabled.has('deepJson') && rng.chance(0.3) ? rng.int(50_000, 150_000) : rng.int(10, 200);
  const open = rng.pick(['[', '{"a":']);
  const close = open === '[' ? ']' : '}';
  return open.repeat(depth) + (rng.chance(0.5) ? '1' + close.repeat(depth) : '');
}

/** Replaces the body by a mutation of its bytes; keeps UTF-8 valid unless invalidUtf8 is on. */
export function mutateBytes(rng: SeededRandom, bytes: Uint8Array, context: FuzzContext): Uint8Array {
  const text = Buffer.from(bytes).toString('utf8');
  const at = rng.int(0, bytes.length);
  switch (rng.int(0, 8)) {
    case 0: return bytes.subarray(0, at);
    case 1: {
      if (bytes.length === 0) return Buffer.from('{');
      const copy = Buffer.from(bytes);
      const index = Math.min(at, copy.length - 1);
      // XOR with the low 7 bits keeps an ASCII byte ASCII; a non-ASCII byte is left alone (stays UTF-8).
      if (copy[index] < 0x80) copy[index] = (copy[index] ^ rng.int(1, 127)) & 0x7f;
      else if (context.enabled.has('invalidUtf8')) copy[index] ^= 0x40;
      return copy;
    }
    case 2: return Buffer.from(text.replace(/-?\d+(\.\d+)?/, () => rng.pick(['1e999999', '-1e999999', '9'.repeat(400), '0.' + '0'.repeat(400) + '1', '18446744073709551616', '-9223372036854775809'])));
    case 3: return Buffer.from(deepNesting(rng, context));
    case 4: return Buffer.from(text.replace(/"[^"]*"/, () => JSON.stringify(longString(rng, context))));
    case 5: {
      if (!context.enabled.has('invalidUtf8')) return Buffer.from(text.replace(/"[^"]*"/, () => JSON.stringify(randomUnicode(rng, 8))));
      const bad = Buffer.from(rng.pick([[0xff], [0xc3], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xc0, 0xaf], [0xe2, 0x82]]));
      return Buffer.concat([bytes.subarray(0, at), bad, bytes.subarray(at)]);
    }
    case 6: return Buffer.from(rng.pick(['', ' ', 'null', 'true', '0', '[]', '{}', '"text"', '[1,2', '{"a"', '{"a":}', ',', '\u0000', '\ufeff{}', '{} {}', '[]]', '{"a":1,"a":2}']));
    case 7: return Buffer.concat([Buffer.from(bytes), Buffer.from(rng.pick([',', '}', ']', ' trailing', '\n{}', '\u0000']))]);
    default: return Buffer.from(text.replace(/:\s*("[^"]*"|-?\d+|true|false|null)/, () => `:${JSON.stringify(randomJsonValue(rng, context))}`));
  }
}

// ---------------------------------------------------------------------------------------------
// requests

function json(value: unknown): Uint8Array {
  return Buffer.from(JSON.stringify(value) ?? 'null');
}

function indexFor(rng: SeededRandom, context: FuzzContext, write: boolean): string {
  const roll = rng.next();
  if (roll < 0.03) return rng.pick(['missing_index', 'bad uid!', 'a'.repeat(401), '%20', 'ünï', '..', 'x%2Fy']);
  if (write || roll < 0.3) return rng.pick(context.writeIndexes);
  return context.readIndex;
}

/** The body compressed (or not, or truncated after compression) under a Content-Encoding. */
function withEncoding(rng: SeededRandom, request: FuzzRequest): FuzzRequest {
  const encoding = rng.pick(['gzip', 'deflate', 'br', 'identity', 'zstd', 'gzip, br', 'GZIP']);
  const body = request.body ?? new Uint8Array();
  let encoded: Uint8Array = body;
  if (rng.chance(0.8)) {
    if (encoding.toLowerCase().startsWith('gzip')) encoded = gzipSync(body);
    else if (encoding === 'deflate') encoded = deflateSync(body);
    else if (encoding === 'br') encoded = brotliCompressSync(body);
  }
  if (rng.chance(0.2)) encoded = encoded.subarray(0, rng.int(0, encoded.length));
  return { ...request, kind: `${request.kind}+encoding`, body: encoded, headers: { ...request.headers, 'content-encoding': encoding } };
}

function withGarbage(rng: SeededRandom, context: FuzzContext, request: FuzzRequest, probability = 0.2): FuzzRequest {
  if (request.body !== undefined && rng.chance(0.03)) return withEncoding(rng, request);
  if (request.body !== undefined && rng.chance(probability)) {
    const body = mutateBytes(rng, request.body, context);
    // JSON, NDJSON and CSV are text: a body that is not UTF-8 must be refused (Meilisearch: 400).
    const expect = context.enabled.has('invalidUtf8') && !isUtf8(body) ? { rejected: 'a body that is not UTF-8 was accepted' } : undefined;
    return { ...request, kind: `${request.kind}+garbage`, body, ...(expect ? { expect } : {}) };
  }
  if (rng.chance(0.02)) return { ...request, kind: `${request.kind}+contentType`, contentType: rng.pick(['text/plain', 'application/xml', '', 'application/json; charset=latin1', 'multipart/form-data', 'application/x-ndjson', 'text/csv']) };
  return request;
}

function fetchLimit(rng: SeededRandom, context: FuzzContext): unknown {
  if (context.enabled.has('fetchLimitWrap') && rng.chance(0.2)) return rng.pick([2 ** 32, 2 ** 32 + 1, 2 ** 53 - 1, 2 ** 40]);
  return maybeInvalid(rng, context, () => rng.int(0, 3000));
}

const GENERATORS: Array<[number, (rng: SeededRandom, context: FuzzContext) => FuzzRequest]> = [
  [30, (rng, context) => withGarbage(rng, context, { kind: 'search', method: 'POST', path: `/indexes/${indexFor(rng, context, false)}/search`, body: json(randomSearchBody(rng, context)) })],
  [8, (rng, context) => ({ kind: 'search-get', method: 'GET', path: `/indexes/${indexFor(rng, context, false)}/search?${searchQueryString(rng, randomSearchBody(rng, context))}` })],
  [8, (rng, context) => {
    const queries = Array.from({ length: rng.int(0, 5) }, () => {
      const query: Record<string, unknown> = { indexUid: indexFor(rng, context, false), ...randomSearchBody(rng, context) };
      if (rng.chance(0.1)) delete query.indexUid;
      if (rng.chance(0.2)) query.federationOptions = maybeInvalid(rng, context, () => ({ weight: rng.pick([0, 0.5, 1, 2, -1]) }));
      return query;
    });
    const body: Record<string, unknown> = { queries: rng.chance(0.95) ? queries : randomJsonValue(rng, context) };
    if (rng.chance(0.3)) body.federation = maybeInvalid(rng, context, () => ({ limit: rng.int(0, 100), offset: rng.int(0, 100), ...(rng.chance(0.3) ? { facetsByIndex: { [context.readIndex]: ['category'] } } : {}), ...(rng.chance(0.2) ? { mergeFacets: {} } : {}) }));
    return withGarbage(rng, context, { kind: 'multi-search', method: 'POST', path: '/multi-search', body: json(body) });
  }],
  [8, (rng, context) => {
    const body: Record<string, unknown> = {};
    if (rng.chance(0.95)) body.facetName = maybeInvalid(rng, context, () => (rng.chance(0.7) ? rng.pick(['category', 'tags', 'name', 'version', 'scoped', 'maybe', 'nested.level', 'downloads']) : randomAttribute(rng)));
    if (rng.chance(0.7)) body.facetQuery = maybeInvalid(rng, context, () => randomWord(rng, context).slice(0, rng.int(0, 6)));
    if (rng.chance(0.4)) body.q = maybeInvalid(rng, context, () => randomWord(rng, context));
    if (rng.chance(0.4)) body.filter = randomFilter(rng, context);
    if (rng.chance(0.1)) body.matchingStrategy = rng.pick(['last', 'all', 'frequency', 'x']);
    if (rng.chance(0.1)) body.attributesToSearchOn = attributeList(rng);
    if (rng.chance(0.1)) body.exhaustiveFacetCount = maybeInvalid(rng, context, () => rng.chance(0.5));
    if (rng.chance(0.03)) body.unknown = 1;
    return withGarbage(rng, context, { kind: 'facet-search', method: 'POST', path: `/indexes/${indexFor(rng, context, false)}/facet-search`, body: json(body) });
  }],
  [8, (rng, context) => {
    if (context.enabled.has('fetchLimitWrap') && rng.chance(0.1)) {
      // The whole read index (1,800 documents) past the offset, whatever the size of the limit.
      const limit = rng.pick([2 ** 32, 2 ** 32 + 5, 2 ** 40, 2 ** 53 - 1]);
      const offset = rng.int(0, 10);
      const get = rng.chance(0.5);
      // Every corpus document has downloads: the filter keeps them all, and sends the browse to the shards.
      const filter = rng.chance(0.7) ? 'downloads >= 0' : null;
      return {
        kind: 'documents-fetch-wrap', method: get ? 'GET' : 'POST', expect: { resultCount: 1800 - offset },
        path: get ? `/indexes/${context.readIndex}/documents?limit=${limit}&offset=${offset}&fields=id${filter ? `&filter=${encodeQuery(filter)}` : ''}` : `/indexes/${context.readIndex}/documents/fetch`,
        ...(get ? {} : { body: json({ limit, offset, fields: ['id'], ...(filter ? { filter } : {}) }) }),
      };
    }
    const body: Record<string, unknown> = {};
    if (rng.chance(0.5)) body.filter = randomFilter(rng, context);
    if (rng.chance(0.3)) body.fields = attributeList(rng);
    if (rng.chance(0.4)) body.limit = fetchLimit(rng, context);
    if (rng.chance(0.3)) body.offset = fetchLimit(rng, context);
    if (rng.chance(0.2)) body.ids = randomList(rng, () => (rng.chance(0.7) ? rng.int(0, 2000) : randomJsonValue(rng, context)), 10);
    if (rng.chance(0.2)) body.sort = sortValue(rng);
    if (rng.chance(0.05)) body.retrieveVectors = randomJsonValue(rng, context);
    return withGarbage(rng, context, { kind: 'documents-fetch', method: 'POST', path: `/indexes/${indexFor(rng, context, false)}/documents/fetch`, body: json(body) });
  }],
  [5, (rng, context) => {
    const parameters: string[] = [];
    if (rng.chance(0.4)) parameters.push(`limit=${encodeQuery(String(fetchLimit(rng, context)))}`);
    if (rng.chance(0.3)) parameters.push(`offset=${encodeQuery(String(fetchLimit(rng, context)))}`);
    if (rng.chance(0.3)) parameters.push(`fields=${encodeQuery((attributeList(rng) as unknown[] ?? []).toString?.() ?? '')}`);
    if (rng.chance(0.3)) parameters.push(`filter=${encodeQuery(String(randomFilter(rng, context)))}`);
    if (rng.chance(0.1)) parameters.push(`ids=${encodeQuery(String(randomList(rng, () => rng.int(0, 2000))))}`);
    if (rng.chance(0.1)) parameters.push(`sort=${encodeQuery(String(sortValue(rng)))}`);
    if (rng.chance(0.05)) parameters.push(`${randomAscii(rng, 5).replace(/[&=#]/g, '')}=${rng.int(0, 9)}`);
    return { kind: 'documents-get', method: 'GET', path: `/indexes/${indexFor(rng, context, false)}/documents?${parameters.join('&')}` };
  }],
  [3, (rng, context) => ({ kind: 'document-get', method: 'GET', path: `/indexes/${indexFor(rng, context, false)}/documents/${encodeQuery(String(rng.chance(0.8) ? rng.int(0, 2000) : rng.chance(0.5) ? 'i'.repeat(rng.int(400, 6000)) : JSON.stringify(randomJsonValue(rng, context))))}${rng.chance(0.3) ? `?fields=${encodeQuery(String(attributeList(rng)))}` : ''}` })],
  [8, (rng, context) => {
    const payload = documentPayload(rng, context);
    const parameters: string[] = [];
    if (rng.chance(0.1)) parameters.push(`primaryKey=${encodeQuery(rng.pick(['id', 'name', 'nope', '', 'a b']))}`);
    if (rng.chance(0.1)) parameters.push(`csvDelimiter=${encodeQuery(rng.pick([';', ',', '', 'ab', '\t', 'é']))}`);
    if (rng.chance(0.05)) parameters.push(`customMetadata=${encodeQuery(randomAscii(rng, 10))}`);
    return withGarbage(rng, context, { kind: `documents-${payload.contentType.split(/[/;]/)[1]}`, method: rng.pick(['POST', 'PUT']), path: `/indexes/${indexFor(rng, context, true)}/documents${parameters.length ? '?' + parameters.join('&') : ''}`, body: Buffer.from(payload.text), contentType: payload.contentType }, 0.25);
  }],
  [3, (rng, context) => withGarbage(rng, context, { kind: 'documents-delete', method: 'POST', path: `/indexes/${indexFor(rng, context, true)}/documents/${rng.pick(['delete-batch', 'delete'])}`, body: json(rng.chance(0.5) ? randomList(rng, () => rng.int(0, 500), 10) : { filter: randomFilter(rng, context) }) })],
  [1, (rng, context) => ({ kind: 'document-delete', method: 'DELETE', path: `/indexes/${indexFor(rng, context, true)}/documents/${encodeQuery(String(rng.int(0, 500)))}` })],
  [6, (rng, context) => {
    if (rng.chance(0.5)) return withGarbage(rng, context, { kind: 'settings', method: 'PATCH', path: `/indexes/${indexFor(rng, context, true)}/settings`, body: json(randomSettings(rng, context)) });
    const [route, method, make] = rng.pick(SETTING_ROUTES);
    if (rng.chance(0.1)) return { kind: 'setting-reset', method: 'DELETE', path: `/indexes/${indexFor(rng, context, true)}/settings/${route}` };
    return withGarbage(rng, context, { kind: 'setting', method: rng.chance(0.9) ? method : rng.pick(['PUT', 'PATCH', 'POST']), path: `/indexes/${indexFor(rng, context, true)}/settings/${route}`, body: json(maybeInvalid(rng, context, () => make(rng, context))) });
  }],
  [2, (rng, context) => ({ kind: 'settings-get', method: 'GET', path: `/indexes/${indexFor(rng, context, false)}/settings${rng.chance(0.7) ? `/${rng.pick(SETTING_ROUTES)[0]}` : ''}` })],
  [2, (rng, context) => {
    const body: Record<string, unknown> = {};
    if (rng.chance(0.9)) body.uid = rng.chance(0.8) ? rng.pick(context.writeIndexes) : randomJsonValue(rng, context);
    if (rng.chance(0.5)) body.primaryKey = maybeInvalid(rng, context, () => rng.pick(['id', 'name', null]));
    if (rng.chance(0.1)) body.other = 1;
    return withGarbage(rng, context, { kind: 'index-create', method: 'POST', path: '/indexes', body: json(body) });
  }],
  [1, (rng, context) => ({ kind: 'index-delete', method: 'DELETE', path: `/indexes/${indexFor(rng, context, true)}` })],
  [1, (rng, context) => withGarbage(rng, context, { kind: 'index-update', method: 'PATCH', path: `/indexes/${indexFor(rng, context, true)}`, body: json(rng.chance(0.8) ? { primaryKey: rng.pick(['id', 'name', 'x', null]) } : randomJsonValue(rng, context)) })],
  [4, (rng, context) => {
    const parameters: string[] = [];
    const pool: Array<() => string> = [
      () => `uids=${rng.pick(['1,2,3', '*', '-1', 'a', '99999999999999999999', ''])}`,
      () => `statuses=${rng.pick(['succeeded', 'failed,enqueued', 'bad', '*'])}`,
      () => `types=${rng.pick(['documentAdditionOrUpdate', 'settingsUpdate,indexCreation', 'nope'])}`,
      () => `indexUids=${rng.pick([context.readIndex, context.writeIndexes[0], 'bad uid!', '*'])}`,
      () => `limit=${rng.pick(['0', '1', '1000', '-1', 'x', '4294967296'])}`,
      () => `from=${rng.pick(['0', '5', '-1', 'x'])}`,
      () => `reverse=${rng.pick(['true', 'false', 'maybe'])}`,
      () => `${rng.pick(['afterEnqueuedAt', 'beforeStartedAt', 'afterFinishedAt'])}=${rng.pick(['2024-01-01', '2024-01-01T00:00:00Z', 'yesterday', ''])}`,
      () => `canceledBy=${rng.pick(['1', 'x'])}`,
    ];
    for (let i = rng.int(0, 3); i > 0; i--) parameters.push(rng.pick(pool)());
    const roll = rng.next();
    if (roll < 0.6) return { kind: 'tasks', method: 'GET', path: `/tasks?${parameters.join('&')}` };
    if (roll < 0.8) return { kind: 'task', method: 'GET', path: `/tasks/${encodeQuery(String(rng.chance(0.8) ? rng.int(0, 300) : randomJsonValue(rng, context)))}` };
    // Cancel / delete only the write indexes' tasks, so the read index keeps its content.
    const scope = `indexUids=${rng.pick(context.writeIndexes)}`;
    return { kind: 'tasks-write', method: rng.chance(0.5) ? 'POST' : 'DELETE', path: rng.chance(0.5) ? `/tasks${rng.chance(0.5) ? '/cancel' : ''}?${[scope, ...parameters].join('&')}` : `/tasks${rng.chance(0.5) ? '/cancel' : ''}?${parameters.filter((p) => !p.startsWith('indexUids')).concat(rng.chance(0.5) ? [scope] : ['statuses=failed']).join('&')}` };
  }],
  [2, (rng, context) => ({ kind: 'misc-get', method: 'GET', path: rng.pick(['/', '/health', '/version', '/stats', `/indexes/${indexFor(rng, context, false)}/stats`, '/indexes', `/indexes?limit=${rng.int(-1, 50)}&offset=${rng.int(-1, 5)}`, `/indexes/${indexFor(rng, context, false)}`, '/keys', `/keys/${'k'.repeat(rng.int(30, 6000))}`, `/tasks/${'9'.repeat(rng.int(10, 400))}`, '/nope', '/indexes/x/y/z', '//indexes', '/indexes/%ff']) })],
  [1, (rng, context) => ({ kind: 'wrong-method', method: rng.pick(['PUT', 'DELETE', 'PATCH', 'POST', 'GET']), path: rng.pick(['/health', '/version', `/indexes/${context.readIndex}/search/x`, '/multi-search', '/stats', `/indexes/${context.readIndex}/facet-search`]) })],
];

const WEIGHTS = GENERATORS.map(([weight]) => weight);

/** One random request: the same rng state gives the same request. */
export function randomRequest(rng: SeededRandom, context: FuzzContext): FuzzRequest {
  const make = GENERATORS[rng.weightedIndex(WEIGHTS)][1];
  const request = make(rng, context);
  // Reads of the read index never change it; writes are aimed at the write indexes (indexFor), but a
  // garbage body could still name the read index nowhere but in the path, which indexFor chose.
  return request;
}
