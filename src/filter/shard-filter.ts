// The `_shard` filter (Meilisearch v1.37+, network feature): `_shard = "g"`, `_shard != "g"`,
// `_shard IN [...]` (and their NOT forms) select the documents of shard group `g`. A node holds only
// its own group's documents (src/network: the group listing its `self`), so on one node a condition
// is all of its documents or none; it is resolved into a constant before the filterable check and
// the evaluation. Meilisearch's errors: the feature off (`feature_not_enabled`, at the first `_shard`,
// before any other check), then, after the filterable check, an operator other than =, != and IN, or
// a group the network does not have (both `invalid_search_filter`, on the documents routes too).
// Pure: the front gives the context (ShardSearchOptions.shardFilter), every thread resolves with it.
import { echo, SkeinError } from '../errors/index.js';
import { firstLeafToken, type FilterNode, type Token } from './filter-ast.js';
import { positionedMessage } from './filter-error.js';

export const SHARD_FIELD = '_shard';

/**
 * What a node knows to resolve `_shard`: the network feature, the network's groups, the groups it holds.
 * A tuple: it crosses to the workers inside ShardSearchOptions, whose encoding keeps no nested object keys.
 */
export type ShardFilterContext = [network: boolean, groups: string[], held: string[]];

/** Cheap test on the raw filter parameter (string or array form): may it name `_shard`? */
export function mayNameShard(filter: unknown): boolean {
  if (typeof filter === 'string') return filter.includes(SHARD_FIELD);
  if (Array.isArray(filter)) return filter.some(mayNameShard);
  return false;
}

/** The first `_shard` attribute of the filter (milli's use_shard_filter). */
function firstShardToken(node: FilterNode): Token | null {
  return firstLeafToken(node, (leaf) => 'field' in leaf && leaf.field.text === SHARD_FIELD ? leaf.field : null);
}

/**
 * The filter with every `_shard` condition replaced by a constant, and the error its evaluation would
 * raise (thrown by the caller after the filterable check, Meilisearch's order). Throws at once when
 * the filter names `_shard` and the feature is off (`context` null: off).
 */
export function resolveShardConditions(node: FilterNode, context: ShardFilterContext | null | undefined): { node: FilterNode; error: SkeinError | null } {
  const first = firstShardToken(node);
  if (first === null) return { node, error: null };
  if (!context?.[0]) {
    throw new SkeinError('feature_not_enabled', positionedMessage(
      'using a shard filter requires enabling the `network` experimental feature. See https://github.com/orgs/meilisearch/discussions/805', first.source, first.start, first.end, first.shownFrom));
  }
  let error: SkeinError | null = null;
  const groups = new Set(context[1]);
  const held = new Set(context[2]);
  const holds = (value: Token): boolean => {
    if (!groups.has(value.text)) error ??= new SkeinError('invalid_search_filter', `Shard \`${echo(value.text)}\` does not exist`);
    return held.has(value.text);
  };
  const notAllowed = (operator: string): FilterNode => {
    error ??= new SkeinError('invalid_search_filter', `Filter operator \`${operator} is not allowed for the special attribute \`_shard\`.\n  - Note: allowed operators: =, !=, IN. \n  - Note: other operators are not allowed for the special attribute \`_shard\`.`);
    return { kind: 'constant', matches: false };
  };
  const visit = (current: FilterNode): FilterNode => {
    switch (current.kind) {
      case 'and':
      case 'or':
        return { kind: current.kind, children: current.children.map(visit) };
      case 'not':
        return { kind: 'not', child: visit(current.child) };
      case 'geoRadius':
      case 'geoBoundingBox':
      case 'geoPolygon':
      case 'constant':
      case 'foreign':
        return current;
      default:
    }
    if (current.field.text !== SHARD_FIELD) return current;
    switch (current.kind) {
      case 'compare':
        if (current.operator === '=') return { kind: 'constant', matches: holds(current.value) };
        if (current.operator === '!=') return { kind: 'constant', matches: !holds(current.value) };
        return notAllowed(current.operator);
      case 'in':
        // Each value must name a group (the union of the equalities).
        return { kind: 'constant', matches: current.values.map(holds).some(Boolean) };
      case 'range': return notAllowed('TO');
      case 'exists': return notAllowed('EXISTS');
      case 'isNull': return notAllowed('IS NULL');
      case 'isEmpty': return notAllowed('IS EMPTY');
      case 'contains': return notAllowed('CONTAINS');
      case 'startsWith': return notAllowed('STARTS WITH');
    }
  };
  return { node: visit(node), error };
}
