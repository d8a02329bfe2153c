// The parsed filter expression: what the parser produces and the shard evaluator consumes. Tokens keep
// their place in the source text so errors found later (attribute not filterable) can point at them.

export interface Token {
  /** The value with quotes removed and escapes resolved. */
  text: string;
  /** Code-unit offsets into `source`. */
  start: number;
  end: number;
  source: string;
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
  | { kind: 'constant'; matches: boolean };

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
      out.push(node.field);
  }
  return out;
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
