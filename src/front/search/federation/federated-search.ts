// Federated multi-search (POST /multi-search with `federation`), as Meilisearch v1.5x answers it
// (crates/meilisearch/src/search/federated/perform.rs): every query asks its index for the first
// offset + limit hits (page * hitsPerPage), with `_rankingScore` forced on; the lists are k-way merged
// by `_rankingScore × weight` (with a sort: by score values, compareScoreValues), ties to the lower
// query position, a document met twice in one index
// kept once; each kept hit gains `_federation`. Facets: per index (`facetsByIndex`) or merged
// (`mergeFacets`). Only the merged window's hits are rewritten; the merge takes at most the needed
// count from a heap of one head per query (O(needed · log queries)).
import { performance } from 'node:perf_hooks';
import type { Access } from '../../../auth/index.js';
import { asSkeinError, SkeinError, type ErrorBody } from '../../../errors/index.js';
import { emptyAnswer, remoteSearchAnswer } from '../../../network/remote-query.js';
import type { FacetExtras } from '../facet-merge.js';
import { facetDistributionJson, facetOrderOf } from '../facet-merge.js';
import { ownValue, setOwn } from '../../../documents/own-fields.js';
import type { FrontReply } from '../../http/http-types.js';
import type { JsonItem } from '../../http/list-body.js';
import type { IndexSettings } from '../../../settings/index-settings.js';
import { compareCodePoints } from '../../../filter/facet-value.js';
import type { FrontContext } from '../../http/route-spec.js';
import { searchIndex } from '../search-routes.js';
import type { IndexView } from '../../indexes/index-catalog.js';
import { isRequestWide } from '../foreign-filter.js';
import { hydrateFederatedHits } from '../foreign-hydration.js';
import type { SearchAnswer } from '../search-response.js';
import { parseSearchBody, type SearchParameters } from '../search-params.js';
import { requiredHitCount, type Federation, type FederationOptions } from './federation-params.js';
import { rankingRulesMismatch } from './ranking-rules-compatibility.js';
import type { ScoreValue } from '../../../ranking/scores/score-details.js';

export interface FederatedQuery {
  indexUid: string;
  parameters: SearchParameters;
  options: FederationOptions;
  /** The query's position in the request (errors name it). */
  position: number;
}

interface Ranked {
  query: number;
  rank: number;
  weighted: number;
}


const DECODER = new TextDecoder();

export async function federatedSearch(queries: FederatedQuery[], federation: Federation, access: Access,
  context: FrontContext, inQuery: (position: number, error: SkeinError) => SkeinError, view: IndexView): Promise<FrontReply> {
  const started = performance.now();
  const needed = requiredHitCount(federation);
  const exhaustive = federation.page !== null || federation.hitsPerPage !== null;
  // Facets are asked of the first query of each index named in facetsByIndex.
  const facetQuery = new Map<string, number>();
  const showScore = queries.map((query) => query.parameters.options.showRankingScore === true);
  queries.forEach((query, k) => {
    const { parameters, indexUid } = query;
    parameters.offset = 0;
    parameters.limit = needed;
    // Exhaustive counts when the federation pages (Meilisearch's is_exhaustive).
    parameters.page = exhaustive ? 1 : null;
    parameters.hitsPerPage = exhaustive ? needed : null;
    parameters.options.showRankingScore = true;
    delete parameters.options.showPerformanceDetails;
    if (federation.distinct !== null) parameters.options.distinct = federation.distinct;
    const facets = federation.facetsByIndex.get(indexUid);
    if (facets !== undefined && facets !== null && !facetQuery.has(indexUid)) {
      facetQuery.set(indexUid, k);
      parameters.options.facets = facets;
    } else {
      delete parameters.options.facets;
    }
  });
  // federationOptions.remote (src/network): a remote's query goes to it, unless it names this node.
  const remoteErrors: Record<string, ErrorBody> = {};
  const viaRemote = queries.map(({ options }) => options.remote !== null && options.remote !== context.network?.config.current.self);
  // The local queries' ranking rules must be comparable (ranking-rules-compatibility.ts).
  const mismatch = rankingRulesMismatch(queries.filter((_, k) => !viaRemote[k]).map(({ indexUid, parameters, position }) => ({
    indexUid, position, q: parameters.q, sort: parameters.options.sort ?? null, matchingStrategy: parameters.matchingStrategy,
    rankingRules: view.get(indexUid)?.settings.rankingRules ?? null,
  })));
  if (mismatch !== null) throw inQuery(mismatch.position, mismatch.error);
  // A sort anywhere: hits are merged rule by rule as Meilisearch does (compareScoreValues), from the score
  // values the workers add to each local hit; without one, by weighted score alone (cheaper, unchanged).
  const bySort = queries.some((query, k) => !viaRemote[k] && (
    (query.parameters.options.sort?.length ?? 0) > 0
    || (view.get(query.indexUid)?.settings.rankingRules ?? []).some((rule) => /:(asc|desc)$/.test(rule))));
  if (bySort) queries.forEach((query, k) => { if (!viaRemote[k]) query.parameters.options.rankingScoreValues = true; });
  const searches = queries.map(({ indexUid, parameters, position, options }, k) =>
    (viaRemote[k] ? remoteSearchAnswer(context.network!, options.remote!, indexUid, parameters).catch((cause: unknown) => {
      const error = asSkeinError(cause);
      if (!error.code.startsWith('remote_')) throw error;
      remoteErrors[options.remote!] = error.toBody();
      return emptyAnswer(parameters);
    }) : searchIndex(access, context, indexUid, parameters, undefined, false, view)).catch((cause: unknown) => {
      let error = asSkeinError(cause);
      // (Meilisearch resolves every query's `_foreign` conditions before searching: those errors name no query)
      if (isRequestWide(error)) throw error;
      if (error.code === 'invalid_search_facets' && facetQuery.get(indexUid) === k) {
        error = new SkeinError(error.code, `Inside \`.federation.facetsByIndex.${indexUid}\`: ${error.message}`);
      }
      throw inQuery(position, error);
    }));
  const unused = [...federation.facetsByIndex].filter(([uid, facets]) => facets !== null && !queries.some((query) => query.indexUid === uid));
  const checks = unused.map(([uid, facets]) => checkUnusedFacets(uid, facets!, access, context));
  const settled = await Promise.allSettled([...searches, ...checks]);
  const failure = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failure) throw failure.reason;
  const answers = (settled.slice(0, queries.length) as PromiseFulfilledResult<SearchAnswer>[]).map((outcome) => outcome.value);
  const searched = performance.now();

  // Facet order consistency across indexes for mergeFacets (checked in index uid order, as Meilisearch's BTreeMap).
  if (federation.mergeFacets !== null) checkFacetOrder(queries, answers, facetQuery, context, inQuery);

  const texts = answers.map((answer) => answer.hitDocuments.map(jsonText));
  const values = bySort ? texts.map((list) => list.map((text, rank) => {
    const [stripped, found] = takeScoreValues(text);
    list[rank] = stripped;
    // A hit without them (a remote's): its `_rankingScore` alone.
    return found ?? [scoreOf(stripped)];
  })) : null;
  const scores = texts.map((list, k) => list.map((text) => scoreOf(text) * queries[k]!.options.weight));
  const seen = new Map<string, Set<number>>();
  const distinctSeen = new Set<string>();
  let rejected = 0;
  const merged: Ranked[] = [];
  const order = values === null ? null : (a: Ranked, b: Ranked): number => compareScoreValues(
    values[a.query]![a.rank]!, queries[a.query]!.options.weight, a.weighted,
    values[b.query]![b.rank]!, queries[b.query]!.options.weight, b.weighted);
  for (const next of kMerge(scores, queries.map((query) => query.options.queryPosition ?? query.position), order)) {
    // With distinct, the whole merged list is walked so every rejected hit leaves the total (as Meilisearch).
    if (merged.length >= needed && federation.distinct === null) break;
    const { query, rank } = next;
    const uid = queries[query]!.indexUid;
    const docId = answers[query]!.hitIds?.[rank];
    if (docId !== undefined) {
      const ids = seen.get(uid) ?? new Set<number>();
      seen.set(uid, ids);
      if (ids.has(docId)) continue;
      ids.add(docId);
    }
    if (federation.distinct !== null) {
      const values = distinctValues(texts[query]![rank]!, federation.distinct);
      if (values.some((value) => distinctSeen.has(value))) {
        rejected += 1;
        continue;
      }
      for (const value of values) distinctSeen.add(value);
    }
    if (merged.length < needed) merged.push(next);
  }
  const [from, to] = windowOf(federation);
  const page = merged.slice(from, to);
  // foreignKeys: the page hydrated after the merge, as Meilisearch's (a remote's hits come as its node answered them)
  const hydrated = hydrateFederatedHits(context, page.map(({ query, rank }) => ({
    foreignKeys: viaRemote[query] ? null : context.indexes.get(queries[query]!.indexUid)?.settings.foreignKeys ?? null,
    hit: texts[query]![rank]!,
  })));
  const hits = page.map(({ query, weighted }, k) => {
    const { indexUid, position, options } = queries[query]!;
    const remote = options.remote === null ? '' : `,"remote":${JSON.stringify(options.remote)}`;
    const federationJson = `{"indexUid":${JSON.stringify(indexUid)},"queriesPosition":${options.queryPosition ?? position},"weightedRankingScore":${weighted}${remote}}`;
    return withFederation(hydrated[k]!, federationJson, showScore[query]!);
  });
  let totalHits = -rejected;
  for (const answer of answers) totalHits += answer.candidates;
  totalHits = Math.max(0, totalHits);

  let body = `{"hits":[${hits.join(',')}],"processingTimeMs":${Math.floor(performance.now() - started)},${paginationOf(federation, totalHits)}`;
  body += facetsJson(queries, answers, facetQuery, federation, context);
  if (Object.keys(remoteErrors).length > 0) body += `,"remoteErrors":${JSON.stringify(remoteErrors)}`;
  if (federation.showPerformanceDetails) {
    const finished = performance.now();
    body += `,"performanceDetails":${JSON.stringify({
      'federated search': `${(finished - started).toFixed(2)}ms`,
      'federated search > search queries': `${(searched - started).toFixed(2)}ms`,
      'federated search > merge': `${(finished - searched).toFixed(2)}ms`,
    })}`;
  }
  return { status: 200, body: `${body}}` };
}

function jsonText(item: JsonItem): string {
  return typeof item === 'string' ? item : DECODER.decode(item);
}

/** Where a top-level key of a hit's JSON starts (its quote), or -1. Hits end with the underscore keys. */
function topLevelKey(json: string, key: string): number {
  const at = json.lastIndexOf(`"${key}":`);
  if (at <= 0) return -1;
  const before = json[at - 1];
  return before === ',' || before === '{' ? at : -1;
}

function scoreSpan(json: string): [start: number, valueStart: number, end: number] | null {
  const start = topLevelKey(json, '_rankingScore');
  if (start < 0) return null;
  const valueStart = start + '"_rankingScore":'.length;
  let end = valueStart;
  while (end < json.length && json[end] !== ',' && json[end] !== '}') end += 1;
  return [start, valueStart, end];
}

function scoreOf(json: string): number {
  const span = scoreSpan(json);
  if (span === null) return 0;
  const value = Number(json.slice(span[1], span[2]));
  return Number.isFinite(value) ? value : 0;
}

/** `_federation` after the document's fields (before `_formatted`, `_matchesPosition`, `_rankingScore`). */
function withFederation(json: string, federationJson: string, keepScore: boolean): string {
  let text = json;
  if (!keepScore) {
    const span = scoreSpan(text);
    if (span !== null) {
      const [start, , end] = span;
      if (text[start - 1] === ',') text = text.slice(0, start - 1) + text.slice(end);
      else if (text[end] === ',') text = text.slice(0, start) + text.slice(end + 1);
      else text = text.slice(0, start) + text.slice(end);
    }
  }
  const member = `"_federation":${federationJson}`;
  for (const key of ['_formatted', '_matchesPosition', '_rankingScore', '_rankingScoreDetails']) {
    const at = topLevelKey(text, key);
    if (at >= 0) return `${text.slice(0, at)}${member},${text.slice(at)}`;
  }
  const close = text.lastIndexOf('}');
  return text.slice(0, close).trimEnd().endsWith('{') ? `{${member}}` : `${text.slice(0, close)},${member}}`;
}

/** A local hit's `_rankingScoreValues` (always its last key, added for this merge) taken out of its JSON. */
function takeScoreValues(json: string): [string, ScoreValue[] | null] {
  const at = topLevelKey(json, '_rankingScoreValues');
  if (at < 0) return [json, null];
  const close = json.lastIndexOf('}');
  let found: ScoreValue[] | null = null;
  try {
    found = JSON.parse(json.slice(at + '"_rankingScoreValues":'.length, close)) as ScoreValue[];
  } catch {
    found = null;
  }
  return [json[at - 1] === ',' ? `${json.slice(0, at - 1)}}` : `${json.slice(0, at)}}`, found];
}

/**
 * Which of two hits goes first (> 0: the left), as Meilisearch's federated merge compares their score
 * values (crates/meilisearch/src/search/federated/weighted_scores.rs, milli score_details.rs
 * WeightedScoreValue), in turn: two runs of ranking rules by local score × their query's weight (equal
 * within f64::EPSILON: next); two sorts in the same direction by value (sort-key.ts order: numbers before
 * strings, missing last); two geo sorts in the same direction by distance, the FARTHER first whatever
 * the direction (WeightedScoreValue's GeoSort does not reverse for `asc`, unlike score_details' GeoSort),
 * a hit without `_geo` after, equal within f64::EPSILON: next. Values that do not compare (different
 * kinds or directions): the side with more values left goes first, then the higher weighted
 * `_rankingScore`. A list ended first goes after; both ended: a tie (lower query position).
 */
export function compareScoreValues(left: readonly ScoreValue[], leftWeight: number, leftGlobal: number,
  right: readonly ScoreValue[], rightWeight: number, rightGlobal: number): number {
  for (let k = 0; ; k++) {
    const a = left[k];
    const b = right[k];
    if (a === undefined || b === undefined) return a === undefined ? (b === undefined ? 0 : -1) : 1;
    if (typeof a === 'number' && typeof b === 'number') {
      const l = a * leftWeight;
      const r = b * rightWeight;
      if (Math.abs(l - r) <= Number.EPSILON) continue;
      return Math.sign(l - r);
    }
    if (typeof a !== 'number' && typeof b !== 'number' && a[0] === b[0] && a[1] === b[1]) {
      const sign = a[0] === 'geo' ? compareDistances(a, b) : compareKeys(a, b);
      if (sign !== 0) return sign;
      continue;
    }
    return Math.sign((left.length - k) - (right.length - k)) || Math.sign(leftGlobal - rightGlobal);
  }
}

/** Two sort values' keys (from their third entry; lower is better): > 0 when the left goes first. */
function compareKeys(a: readonly unknown[], b: readonly unknown[]): number {
  for (let k = 2; k < Math.max(a.length, b.length); k++) {
    const l = (a[k] as number | undefined) ?? 0;
    const r = (b[k] as number | undefined) ?? 0;
    if (l !== r) return l < r ? 1 : -1;
  }
  return 0;
}

/** Two geo sort values (sort-key.ts: [class 0, ±distance] or class 2 without `_geo`): the larger distance first. */
function compareDistances(a: readonly unknown[], b: readonly unknown[]): number {
  const distance = (value: readonly unknown[]): number | null => (value[2] === 0 ? (value[1] ? 1 : -1) * (value[3] as number) : null);
  const l = distance(a);
  const r = distance(b);
  if (l === null || r === null) return l === null ? (r === null ? 0 : -1) : 1;
  return Math.abs(l - r) <= Number.EPSILON ? 0 : Math.sign(l - r);
}

/**
 * The queries' ranked lists merged by weighted score (higher first), ties to the lower query
 * position, then rank: a binary heap of one head per list.
 */
function* kMerge(scores: number[][], positions: number[], order: ((a: Ranked, b: Ranked) => number) | null): Generator<Ranked> {
  const heap: Ranked[] = [];
  const tie = (a: Ranked, b: Ranked): boolean => positions[a.query]! < positions[b.query]! || (positions[a.query] === positions[b.query] && a.query < b.query);
  const before = order === null
    ? (a: Ranked, b: Ranked): boolean => a.weighted > b.weighted || (a.weighted === b.weighted && tie(a, b))
    : (a: Ranked, b: Ranked): boolean => {
      const sign = order(a, b);
      return sign > 0 || (sign === 0 && tie(a, b));
    };
  const push = (item: Ranked): void => {
    heap.push(item);
    let k = heap.length - 1;
    while (k > 0) {
      const parent = (k - 1) >> 1;
      if (!before(heap[k]!, heap[parent]!)) break;
      [heap[k], heap[parent]] = [heap[parent]!, heap[k]!];
      k = parent;
    }
  };
  const pop = (): Ranked => {
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      let k = 0;
      for (;;) {
        const left = 2 * k + 1;
        const right = left + 1;
        let best = k;
        if (left < heap.length && before(heap[left]!, heap[best]!)) best = left;
        if (right < heap.length && before(heap[right]!, heap[best]!)) best = right;
        if (best === k) break;
        [heap[k], heap[best]] = [heap[best]!, heap[k]!];
        k = best;
      }
    }
    return top;
  };
  scores.forEach((list, query) => { if (list.length > 0) push({ query, rank: 0, weighted: list[0]! }); });
  while (heap.length > 0) {
    const top = pop();
    yield top;
    const list = scores[top.query]!;
    if (top.rank + 1 < list.length) push({ query: top.query, rank: top.rank + 1, weighted: list[top.rank + 1]! });
  }
}

/** The values of the distinct attribute (dotted path, arrays flattened), typed so 1 and "1" differ. */
function distinctValues(json: string, attribute: string): string[] {
  const out: string[] = [];
  const visit = (value: unknown, rest: string[]): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item, rest);
      return;
    }
    if (rest.length === 0) {
      if (value !== null && value !== undefined && typeof value !== 'object') out.push(`${typeof value}:${String(value)}`);
      return;
    }
    if (value === null || typeof value !== 'object') return;
    const record = value as Record<string, unknown>;
    // A flattened key "a.b" as well as nested objects.
    for (let k = rest.length; k >= 1; k -= 1) {
      const key = rest.slice(0, k).join('.');
      if (key in record) visit(record[key], rest.slice(k));
    }
  };
  visit(JSON.parse(json), attribute.split('.'));
  return out;
}

function windowOf(federation: Federation): [number, number] {
  if (federation.page === null && federation.hitsPerPage === null) return [federation.offset, federation.offset + federation.limit];
  const page = federation.page ?? 1;
  const hitsPerPage = federation.hitsPerPage ?? 20;
  if (page === 0) return [0, 0];
  return [(page - 1) * hitsPerPage, page * hitsPerPage];
}

function paginationOf(federation: Federation, totalHits: number): string {
  if (federation.page === null && federation.hitsPerPage === null) {
    return `"limit":${federation.limit},"offset":${federation.offset},"estimatedTotalHits":${totalHits}`;
  }
  const page = federation.page ?? 1;
  const hitsPerPage = federation.hitsPerPage ?? 20;
  const totalPages = hitsPerPage === 0 ? 0 : Math.ceil(totalHits / hitsPerPage);
  return `"hitsPerPage":${hitsPerPage},"page":${page},"totalPages":${totalPages},"totalHits":${totalHits}`;
}


function facetNames(patterns: string[], facets: FacetExtras | null): string[] {
  const names = new Set(patterns.filter((pattern) => !pattern.includes('*')));
  for (const name of Object.keys(facets?.facetDistribution ?? {})) names.add(name);
  return [...names];
}

function checkFacetOrder(queries: FederatedQuery[], answers: SearchAnswer[], facetQuery: Map<string, number>,
  context: FrontContext, inQuery: (position: number, error: SkeinError) => SkeinError): void {
  const first = new Map<string, [uid: string, order: 'alpha' | 'count']>();
  for (const uid of [...facetQuery.keys()].sort()) {
    const k = facetQuery.get(uid)!;
    const faceting = context.indexes.require(uid).settings.faceting;
    for (const facet of facetNames(queries[k]!.parameters.options.facets as string[], answers[k]!.facets)) {
      const order = facetOrderOf(faceting, facet);
      const previous = first.get(facet);
      if (previous === undefined) {
        first.set(facet, [uid, order]);
      } else if (previous[1] !== order) {
        const words = (value: 'alpha' | 'count'): string => (value === 'alpha' ? 'alphabetically' : 'by count');
        throw inQuery(queries[k]!.position, new SkeinError('invalid_multi_search_facet_order',
          `Inside \`.federation.facetsByIndex.${uid}\`: Inconsistent order for values in facet \`${facet}\`: index \`${previous[0]}\` orders ${words(previous[1])}, but index \`${uid}\` orders ${words(order)}.\n - Hint: Remove \`federation.mergeFacets\` or change \`faceting.sortFacetValuesBy\` to be consistent in settings.`));
      }
    }
  }
}

/** Code point order (Rust's str order, milli's bytes), where `<` compares UTF-16 units. */
function compareStrings(a: string, b: string): number {
  return compareCodePoints(a, b);
}

function statsJson(stats: Record<string, { min: number; max: number }>): string {
  return `{${Object.keys(stats).sort(compareStrings).map((facet) => `${JSON.stringify(facet)}:${JSON.stringify(stats[facet])}`).join(',')}}`;
}

function facetsJson(queries: FederatedQuery[], answers: SearchAnswer[], facetQuery: Map<string, number>,
  federation: Federation, context: FrontContext): string {
  if (facetQuery.size === 0) return '';
  const uids = [...facetQuery.keys()].sort(compareStrings);
  if (federation.mergeFacets === null) {
    const entries = uids.map((uid) => {
      const facets = answers[facetQuery.get(uid)!]!.facets;
      const faceting = context.indexes.require(uid).settings.faceting;
      const distribution = facets?.facetDistributionJson ?? facetDistributionJson(facets?.facetDistribution ?? {}, faceting);
      return `${JSON.stringify(uid)}:{"distribution":${distribution},"stats":${statsJson(facets?.facetStats ?? {})}}`;
    });
    return `,"facetsByIndex":{${entries.join(',')}}`;
  }
  const distribution = new Map<string, Map<string, number>>();
  const stats: Record<string, { min: number; max: number }> = {};
  const orders = new Map<string, 'alpha' | 'count'>();
  for (const uid of uids) {
    const k = facetQuery.get(uid)!;
    const facets = answers[k]!.facets;
    const faceting = context.indexes.require(uid).settings.faceting;
    for (const [facet, values] of Object.entries(facets?.facetDistribution ?? {})) {
      if (!orders.has(facet)) orders.set(facet, facetOrderOf(faceting, facet));
      const into = distribution.get(facet) ?? new Map<string, number>();
      distribution.set(facet, into);
      // Each index's own distribution is cut to its maxValuesPerFacet first, as Meilisearch computes it.
      const shaped = JSON.parse(facetDistributionJson({ [facet]: values }, faceting)) as Record<string, Record<string, number>>;
      for (const [value, count] of orderedEntries(values, shaped[facet] ?? {})) into.set(value, (into.get(value) ?? 0) + count);
    }
    for (const [facet, { min, max }] of Object.entries(facets?.facetStats ?? {})) {
      const into = ownValue(stats, facet);
      setOwn(stats, facet, into ? { min: Math.min(into.min, min), max: Math.max(into.max, max) } : { min, max });
    }
  }
  const max = federation.mergeFacets.maxValuesPerFacet;
  const facetsOut = [...distribution.keys()].sort(compareStrings).map((facet) => {
    const entries = [...distribution.get(facet)!];
    if (orders.get(facet) === 'count') entries.sort((a, b) => b[1] - a[1]);
    else entries.sort((a, b) => compareStrings(a[0], b[0]));
    const kept = max === null ? entries : entries.slice(0, max);
    return `${JSON.stringify(facet)}:{${kept.map(([value, count]) => `${JSON.stringify(value)}:${count}`).join(',')}}`;
  });
  return `,"facetDistribution":{${facetsOut.join(',')}},"facetStats":${statsJson(stats)}`;
}

/** The kept values of one facet (shaped keeps them, JSON.parse may reorder numeric keys: order does not matter here). */
function orderedEntries(all: Record<string, number>, shaped: Record<string, number>): [string, number][] {
  return Object.keys(shaped).map((value) => [value, all[value] ?? shaped[value]!]);
}

/** facetsByIndex naming an index no query searches: the index must exist and the facets be valid. */
async function checkUnusedFacets(uid: string, facets: string[], access: Access, context: FrontContext): Promise<void> {
  const note = `\n - Note: index \`${uid}\` is not used in queries`;
  try {
    await searchIndex(access, context, uid, parseSearchBody({ limit: 0, facets }));
  } catch (cause) {
    const error = asSkeinError(cause);
    const wrapped = new SkeinError(error.code, `Inside \`.federation.facetsByIndex.${uid}\`: ${error.message}${note}`);
    if (error.code === 'index_not_found') Object.defineProperty(wrapped, 'status', { value: 400 });
    throw wrapped;
  }
}
