// Federated search refuses to merge queries whose ranking rules cannot be compared, as Meilisearch v1.53
// (meilisearch's search/ranking_rules.rs): each query's rules are canonicalized (a placeholder search
// drops the relevancy rules; a keyword search puts `words` first unless matchingStrategy is `all`;
// duplicates and an unused `sort` go), consecutive relevancy rules coalesce into one, and two queries
// are compatible when their rules' kinds (relevancy, ascending/descending sort, geo sort) agree pairwise.
// Queries are checked index by index in uid order, each against the one with the most constraints so
// far; the first mismatch is `invalid_multi_search_query_ranking_rules` with Meilisearch's message.
import { SkeinError } from '../../../errors/index.js';

type Relevancy = 'words' | 'typo' | 'proximity' | 'attribute' | 'attributeRank' | 'wordPosition' | 'exactness';
type Criterion = { kind: Relevancy | 'sort' } | { kind: 'asc' | 'desc'; field: string };
/** A `sort` parameter entry: `field` null for `_geoPoint(..)`. */
interface AscDesc {
  asc: boolean;
  field: string | null;
}

type Source = { t: 'criterion'; i: number } | { t: 'coalesced'; begin: number; end: number } | { t: 'sort'; criterion: number; sort: number };

type Action =
  | { t: 'prependedWords'; at: Source }
  | { t: 'removedDuplicate'; earlier: Source; removed: Source }
  | { t: 'removedWords'; allStrategy: boolean; removed: Source }
  | { t: 'removedPlaceholder'; removed: Source }
  | { t: 'removedSort'; removed: Source };

type Kind = 'relevancy' | 'ascending sort' | 'descending sort' | 'ascending geo sort' | 'descending geo sort';

interface Rule {
  source: Source;
  kind: Kind;
}

const RESERVED_SORT = new Set(['_geo', '_geoDistance', '_geoRadius', '_geoBoundingBox']);
const RELEVANCY = new Set<string>(['words', 'typo', 'proximity', 'attribute', 'attributeRank', 'wordPosition', 'exactness']);

function criterionOf(text: string): Criterion {
  if (RELEVANCY.has(text) || text === 'sort') return { kind: text as Relevancy | 'sort' };
  const colon = text.lastIndexOf(':');
  return { kind: text.slice(colon + 1) === 'desc' ? 'desc' : 'asc', field: text.slice(0, colon) };
}

function criterionName(criterion: Criterion): string {
  return 'field' in criterion ? `${criterion.field}:${criterion.kind}` : criterion.kind;
}

/** null when an entry does not parse (the search reports it). */
function ascDescOf(sort: readonly string[]): AscDesc[] | null {
  const out: AscDesc[] = [];
  for (const text of sort) {
    const colon = text.lastIndexOf(':');
    const direction = text.slice(colon + 1);
    if (colon < 0 || (direction !== 'asc' && direction !== 'desc')) return null;
    const subject = text.slice(0, colon);
    if (subject === '' || RESERVED_SORT.has(subject)) return null;
    out.push({ asc: direction === 'asc', field: subject.startsWith('_geoPoint(') ? null : subject });
  }
  return out;
}

export class RankingRules {
  private readonly canonical: Criterion[] = [];
  private canonicalSort: AscDesc[] | null = null;
  private readonly actions: Action[] = [];
  private readonly rules: Rule[];

  constructor(private readonly criteria: Criterion[], private readonly sort: AscDesc[] | null, allStrategy: boolean, keyword: boolean) {
    if (keyword) this.canonicalizeKeyword(allStrategy);
    else this.canonicalizePlaceholder();
    this.rules = this.coalesced();
  }

  private canonicalizeSortCriterion(index: number, sortAt: { index: number | null }, sortedFields: Map<string, Source>): void {
    if (sortAt.index !== null) {
      this.actions.push({ t: 'removedDuplicate', earlier: { t: 'criterion', i: sortAt.index }, removed: { t: 'criterion', i: index } });
    } else if (this.sort !== null) {
      sortAt.index = index;
      this.canonical.push({ kind: 'sort' });
      let geoAt: number | null = null;
      const kept: AscDesc[] = [];
      this.sort.forEach((entry, position) => {
        const source: Source = { t: 'sort', criterion: index, sort: position };
        if (entry.field !== null) {
          const earlier = sortedFields.get(entry.field);
          if (earlier) this.actions.push({ t: 'removedDuplicate', earlier, removed: source });
          else {
            sortedFields.set(entry.field, source);
            kept.push(entry);
          }
        } else if (geoAt !== null) {
          this.actions.push({ t: 'removedDuplicate', earlier: { t: 'sort', criterion: index, sort: geoAt }, removed: source });
        } else {
          geoAt = position;
          kept.push(entry);
        }
      });
      this.canonicalSort = kept;
    } else {
      this.actions.push({ t: 'removedSort', removed: { t: 'criterion', i: index } });
    }
  }

  private canonicalizeField(criterion: Criterion & { field: string }, index: number, sortedFields: Map<string, Source>): void {
    const earlier = sortedFields.get(criterion.field);
    if (earlier) this.actions.push({ t: 'removedDuplicate', earlier, removed: { t: 'criterion', i: index } });
    else {
      sortedFields.set(criterion.field, { t: 'criterion', i: index });
      this.canonical.push(criterion);
    }
  }

  private canonicalizePlaceholder(): void {
    const sortAt = { index: null as number | null };
    const sortedFields = new Map<string, Source>();
    this.criteria.forEach((criterion, index) => {
      if ('field' in criterion) this.canonicalizeField(criterion, index, sortedFields);
      else if (criterion.kind === 'sort') this.canonicalizeSortCriterion(index, sortAt, sortedFields);
      else this.actions.push({ t: 'removedPlaceholder', removed: { t: 'criterion', i: index } });
    });
  }

  private canonicalizeKeyword(allStrategy: boolean): void {
    // words: undefined (not met yet), null (prepended), or its index.
    let words: number | null | undefined;
    const seen = new Map<string, number>();
    const sortAt = { index: null as number | null };
    const sortedFields = new Map<string, Source>();
    this.criteria.forEach((criterion, index) => {
      if ('field' in criterion) return this.canonicalizeField(criterion, index, sortedFields);
      if (criterion.kind === 'sort') return this.canonicalizeSortCriterion(index, sortAt, sortedFields);
      if (criterion.kind === 'words') {
        if (allStrategy) return void this.actions.push({ t: 'removedWords', allStrategy: true, removed: { t: 'criterion', i: index } });
        if (words !== undefined) {
          if (words !== null) return void this.actions.push({ t: 'removedDuplicate', earlier: { t: 'criterion', i: words }, removed: { t: 'criterion', i: index } });
          this.actions.push({ t: 'removedWords', allStrategy: false, removed: { t: 'criterion', i: index } });
        }
        words = index;
        return void this.canonical.push(criterion);
      }
      if (!allStrategy && words === undefined) {
        this.actions.push({ t: 'prependedWords', at: { t: 'criterion', i: index } });
        this.canonical.push({ kind: 'words' });
        words = null;
      }
      const earlier = seen.get(criterion.kind);
      if (earlier !== undefined) this.actions.push({ t: 'removedDuplicate', earlier: { t: 'criterion', i: earlier }, removed: { t: 'criterion', i: index } });
      else {
        seen.set(criterion.kind, index);
        this.canonical.push(criterion);
      }
    });
  }

  /** The canonical rules with consecutive relevancy rules coalesced (meilisearch's coalesce_iterator). */
  private coalesced(): Rule[] {
    const rules: Rule[] = [];
    this.canonical.forEach((criterion, index) => {
      let next: Rule[];
      if ('field' in criterion) {
        const geo = criterion.field === '_geo';
        next = [{ source: { t: 'criterion', i: index }, kind: criterion.kind === 'asc' ? (geo ? 'ascending geo sort' : 'ascending sort') : (geo ? 'descending geo sort' : 'descending sort') }];
      } else if (criterion.kind === 'sort') {
        next = (this.canonicalSort ?? []).map((entry, position) => ({
          source: { t: 'sort', criterion: index, sort: position },
          kind: entry.field === null ? (entry.asc ? 'ascending geo sort' : 'descending geo sort') : (entry.asc ? 'ascending sort' : 'descending sort'),
        }));
      } else {
        next = [{ source: { t: 'criterion', i: index }, kind: 'relevancy' }];
      }
      for (const rule of next) {
        const previous = rules[rules.length - 1];
        if (previous && previous.kind === 'relevancy' && rule.kind === 'relevancy' && rule.source.t === 'criterion') {
          if (previous.source.t === 'criterion') previous.source = { t: 'coalesced', begin: previous.source.i, end: rule.source.i };
          else if (previous.source.t === 'coalesced') previous.source = { t: 'coalesced', begin: previous.source.begin, end: rule.source.i };
          else previous.source = rule.source;
        } else {
          rules.push(rule);
        }
      }
    });
    return rules;
  }

  get constraintCount(): number {
    return this.rules.length;
  }

  /** The first pair of rules whose kinds differ, or null. */
  mismatchWith(previous: RankingRules): [Rule, Rule] | null {
    const count = Math.min(this.rules.length, previous.rules.length);
    for (let k = 0; k < count; k++) if (this.rules[k]!.kind !== previous.rules[k]!.kind) return [previous.rules[k]!, this.rules[k]!];
    return null;
  }

  describe(rule: Rule, query: number, indexUid: string): string {
    const { source } = rule;
    const where = source.t === 'criterion' ? `\`queries[${query}]\`, \`${indexUid}.rankingRules[${source.i}]\``
      : source.t === 'coalesced' ? `\`queries[${query}]\`, \`${indexUid}.rankingRules[${source.begin}..=${source.end}]\``
        : `\`queries[${query}].sort[${source.sort}]\`, \`${indexUid}.rankingRules[${source.criterion}]\``;
    let name: string | null;
    if (source.t === 'criterion') name = this.canonical[source.i] ? criterionName(this.canonical[source.i]!) : null;
    else if (source.t === 'coalesced') {
      const names = this.canonical.slice(source.begin, source.end + 1).map(criterionName);
      name = names.length > 0 ? names.join(', ') : null;
    } else {
      const entry = this.canonicalSort?.[source.sort];
      name = entry && entry.field !== null ? `on field \`${entry.field}\`` : null;
    }
    return `${where}: ${rule.kind} rule(s) ${name ?? 'default'}`;
  }

  private sourceName(source: Source): string {
    if (source.t === 'criterion') return this.criteria[source.i] ? criterionName(this.criteria[source.i]!) : 'unknown';
    if (source.t === 'coalesced') return this.criteria.slice(source.begin, source.end + 1).map(criterionName).join(', ');
    const entry = this.sort?.[source.sort];
    if (!entry) return 'unknown';
    return `${entry.field ?? '_geo(..)'}:${entry.asc ? 'asc' : 'desc'}`;
  }

  private static position(source: Source): string {
    if (source.t === 'criterion') return `#${source.i} in ranking rules`;
    if (source.t === 'coalesced') return `#${source.begin} to #${source.end} in ranking rules`;
    return `#${source.sort} in \`query.sort\` (as \`sort\` is #${source.criterion} in ranking rules)`;
  }

  notes(): string {
    return this.actions.map((action, k) => {
      const n = k + 1;
      switch (action.t) {
        case 'prependedWords':
          return `    ${n}. Prepended rule \`words\` before first relevancy rule \`${this.sourceName(action.at)}\` at position ${RankingRules.position(action.at)}\n`;
        case 'removedDuplicate':
          return `    ${n}. Removed duplicate rule \`${this.sourceName(action.earlier)}\` at position ${RankingRules.position(action.removed)} as it already appears at position ${RankingRules.position(action.earlier)}\n`;
        case 'removedWords':
          return `    ${n}. Removed rule \`words\` at position ${RankingRules.position(action.removed)} because ${action.allStrategy ? '`query.matchingWords` is set to `all`' : 'it was previously prepended'}\n`;
        case 'removedPlaceholder':
          return `    ${n}. Removed relevancy rule \`${this.sourceName(action.removed)}\` at position ${RankingRules.position(action.removed)} because the query is a placeholder search (\`q\`: "")\n`;
        case 'removedSort':
          return `   ${n}. Removed rule \`sort\` at position ${RankingRules.position(action.removed)} because \`query.sort\` is empty\n`;
      }
    }).join('');
  }
}

function reason(previous: Kind, current: Kind): string {
  const geo = (kind: Kind) => kind.endsWith('geo sort');
  const asc = (kind: Kind) => kind.startsWith('ascending');
  if (previous === 'relevancy' || current === 'relevancy') {
    return geo(previous) || geo(current) ? 'cannot compare a relevancy rule with a geosort rule' : 'cannot compare a relevancy rule with a sort rule';
  }
  if (geo(previous) !== geo(current)) return 'cannot compare a sort rule with a geosort rule';
  if (asc(previous) !== asc(current)) return geo(previous) ? 'cannot compare two geosort rules in opposite directions' : 'cannot compare two sort rules in opposite directions';
  return 'internal error, comparison should be possible';
}

export interface CompatibilityQuery {
  indexUid: string;
  /** The query's position in the request. */
  position: number;
  /** null: the index is missing (its index_not_found comes first: the check stops there). */
  rankingRules: readonly string[] | null;
  q: string | null;
  sort: readonly string[] | null;
  matchingStrategy: string;
}

/**
 * Meilisearch's check over the local queries (grouped by index, indexes in uid order); returns the
 * failing query's position and the error, or null. A query whose sort does not parse, or whose
 * index is missing, stops the check (its search reports that first).
 */
export function rankingRulesMismatch(queries: readonly CompatibilityQuery[]): { position: number; error: SkeinError } | null {
  const byIndex = new Map<string, CompatibilityQuery[]>();
  for (const query of queries) {
    const list = byIndex.get(query.indexUid) ?? [];
    list.push(query);
    byIndex.set(query.indexUid, list);
  }
  let previous: { rules: RankingRules; position: number; indexUid: string } | null = null;
  for (const uid of [...byIndex.keys()].sort()) {
    for (const query of byIndex.get(uid)!) {
      if (query.rankingRules === null) return null;
      const sort = query.sort === null ? null : ascDescOf(query.sort);
      if (query.sort !== null && sort === null) return null;
      const keyword = query.q !== null && query.q.trim() !== '';
      const rules = new RankingRules(query.rankingRules.map(criterionOf), sort, query.matchingStrategy === 'all', keyword);
      if (previous !== null) {
        const mismatch = rules.mismatchWith(previous.rules);
        if (mismatch !== null) {
          const [before, now] = mismatch;
          let message = `The results of queries #${previous.position} and #${query.position} are incompatible: \n`;
          message += `  1. ${previous.rules.describe(before, previous.position, previous.indexUid)}\n`;
          message += `  2. ${rules.describe(now, query.position, uid)}\n`;
          message += `  - ${reason(before.kind, now.kind)}\n`;
          const previousNotes = previous.rules.notes();
          if (previousNotes !== '') message += `  - note: The ranking rules of query #${previous.position} were modified during canonicalization:\n${previousNotes}`;
          const notes = rules.notes();
          if (notes !== '') message += `  - note: The ranking rules of query #${query.position} were modified during canonicalization:\n${notes}`;
          return { position: query.position, error: new SkeinError('invalid_multi_search_query_ranking_rules', message) };
        }
        if (previous.rules.constraintCount > rules.constraintCount) continue;
      }
      previous = { rules, position: query.position, indexUid: uid };
    }
  }
  return null;
}
