// The parsed filter expression: what the parser produces and the shard evaluator consumes. Tokens keep
// their place in the source text so errors found later (attribute not filterable) can point at them.

export interface Token {
  /** The value with quotes removed and escapes resolved. */
  text: string;
  /** Code-unit offsets into `source`. */
  start: number;
  end: number;
  source: string;
  /** Where the text an error shows starts (columns still count from 0): a `_foreign(..)` condition's tokens show it from `_foreign` on, as Meilisearch's. */
  shownFrom?: number;
}

export type CompareOperator = '=' | '!=' | '>' | '>=' | '<' | '<=';

export type FilterNode =
  | { kind: 'and'; children: FilterNode[] }
  | { kind: 'or'; children: FilterNode[] }
  | { kind: 'not'; child: FilterNode }
  | { kind: 'compare'; field: Token; operator: CompareOperator; value: Token }
  | { kind: 'range'; field: Token; from: Token; to: Token }
  | { kind: 'in'; field: Token; values: Token[] }
  | { kind: 'exists'; field: Token }
  | { kind: 'isNull'; field: Token }
  | { kind: 'isEmpty'; field: Token }
  /** `keyword`: the `CONTAINS` word itself (the experimental feature's error points at it). */
  | { kind: 'contains'; field: Token; value: Token; keyword?: Token }
  | { kind: 'startsWith'; field: Token; value: Token }
  // `numbers`: the argument tokens in order, for the range checks made after parsing (geo-arguments.ts).
  | { kind: 'geoRadius'; token: Token; lat: number; lng: number; meters: number; numbers: Token[] }
  | { kind: 'geoBoundingBox'; token: Token; top: number; right: number; bottom: number; left: number; numbers: Token[] }
  /** `_geoPolygon`: `points` as [lat, lng] (GeoJSON documents only, as Meilisearch). */
  | { kind: 'geoPolygon'; token: Token; points: [number, number][]; numbers: Token[] }
  /** A `_shard` condition resolved on this node (shard-filter.ts): all its documents or none. */
  | { kind: 'constant'; matches: boolean }
  /** `_foreign(field, filter)`: `filter` is evaluated on the foreign index, then this is `field IN [ids]` (front/search/foreign-filter.ts). */
  | { kind: 'foreign'; field: Token; filter: FilterNode };

/** Every attribute token the expression names, in order (geo conditions name none: filter-input.ts checks them). */
export function filterFields(node: FilterNode, out: Token[] = []): Token[] {
  switch (node.kind) {
    case 'and':
    case 'or':
      for (const child of node.children) filterFields(child, out);
      break;
    case 'not':
      filterFields(node.child, out);
      break;
    case 'geoRadius':
    case 'geoBoundingBox':
    case 'geoPolygon':
    case 'constant':
      break;
    default:
      // (`_foreign`: its field only; the inner filter names the foreign index's attributes)
      out.push(node.field);
  }
  return out;
}

/** The `_foreign` conditions of the expression in text order, not those nested in another (which are refused). */
export function foreignConditions(node: FilterNode, out: Extract<FilterNode, { kind: 'foreign' }>[] = []): Extract<FilterNode, { kind: 'foreign' }>[] {
  switch (node.kind) {
    case 'and':
    case 'or':
      for (const child of node.children) foreignConditions(child, out);
      break;
    case 'not':
      foreignConditions(node.child, out);
      break;
    case 'foreign':
      out.push(node);
      break;
    default:
  }
  return out;
}

/**
 * A filter in the text Meilisearch serializes a rewritten filter to (milli's
 * serialize_index_filter_to_filter_string): every name and value quoted as JSON, each member of
 * AND / OR in parentheses. Errors found in the rewritten filter quote this text.
 */
export function filterText(node: FilterNode): string {
  const quote = (token: Token): string => JSON.stringify(token.text);
  switch (node.kind) {
    case 'and':
    case 'or':
      return node.children.map((child) => `(${filterText(child)})`).join(node.kind === 'and' ? ' AND ' : ' OR ');
    case 'not': return `NOT (${filterText(node.child)})`;
    case 'compare': return `${quote(node.field)} ${node.operator} ${quote(node.value)}`;
    case 'range': return `${quote(node.field)} ${quote(node.from)} TO ${quote(node.to)}`;
    case 'in': return `${quote(node.field)} IN [${node.values.map(quote).join(', ')}]`;
    case 'exists': return `${quote(node.field)} EXISTS`;
    case 'isNull': return `${quote(node.field)} IS NULL`;
    case 'isEmpty': return `${quote(node.field)} IS EMPTY`;
    case 'contains': return `${quote(node.field)} CONTAINS ${quote(node.value)}`;
    case 'startsWith': return `${quote(node.field)} STARTS WITH ${quote(node.value)}`;
    case 'geoRadius': return `_geoRadius(${node.numbers.map((number) => number.text).join(', ')})`;
    case 'geoBoundingBox': {
      const [a, b, c, d] = node.numbers.map((number) => number.text);
      return `_geoBoundingBox([${a}, ${b}], [${c}, ${d}])`;
    }
    case 'geoPolygon': {
      const pairs: string[] = [];
      for (let k = 0; k < node.numbers.length; k += 2) pairs.push(`[${node.numbers[k]!.text}, ${node.numbers[k + 1]!.text}]`);
      return `_geoPolygon(${pairs.join(', ')})`;
    }
    case 'constant':
    case 'foreign':
      throw new Error(`a ${node.kind} condition has no filter text`);
  }
}

/** Leaves of the expression (conditions), in order. */
export type FilterLeaf = Exclude<FilterNode, { kind: 'and' | 'or' | 'not' }>;

/** The first token `pick` finds in a condition of the expression, in order; null when none. */
export function firstLeafToken(node: FilterNode, pick: (leaf: FilterLeaf) => Token | null): Token | null {
  switch (node.kind) {
    case 'and':
    case 'or':
      for (const child of node.children) {
        const found = firstLeafToken(child, pick);
        if (found) return found;
      }
      return null;
    case 'not':
      return firstLeafToken(node.child, pick);
    case 'foreign':
      // (as Meilisearch's use_contains_operator and use_field: the inner filter too)
      return pick(node) ?? firstLeafToken(node.filter, pick);
    default:
      return pick(node);
  }
}

/** Number of conditions (leaves). */
export function conditionCount(node: FilterNode): number {
  switch (node.kind) {
    case 'and':
    case 'or':
      return node.children.reduce((sum, child) => sum + conditionCount(child), 0);
    case 'not':
      return conditionCount(node.child);
    default:
      return 1;
  }
}
