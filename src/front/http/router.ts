// Method + path pattern ("/indexes/{indexUid}/documents/{documentId}") -> the route and its
// parameters, or 405 when the path exists with other methods, or 404. Pure, no HTTP types. On
// find-my-way (Fastify's radix-tree router, compiled): ~6x cheaper per lookup than the hand-written
// matcher it replaced (bench/hand-written-router.ts; DECISIONS.md). Paths as actix' NormalizePath
// sees them: a trailing slash and repeated slashes ignored; parameters percent-decoded; literal
// segments win over parameters (`/documents/delete-batch` is not a document id).
import FindMyWay from 'find-my-way';

export interface RouteMatch<R> {
  route: R;
  params: Record<string, string>;
}

export type RouteLookup<R> =
  | { kind: 'found'; match: RouteMatch<R> }
  /** The path exists with other methods: Meilisearch (actix) answers 405. */
  | { kind: 'methodNotAllowed' }
  | { kind: 'notFound' };

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export class Router<R> {
  // maxParamLength: find-my-way's default (100) finds no route for longer parameters; ids and uids
  // are checked by the routes (document ids up to 511 bytes, Meilisearch's error otherwise).
  private readonly tree = FindMyWay({ ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, caseSensitive: true, maxParamLength: 1 << 20 });
  /** Every method some route answers: a miss is a 405 when one of them matches the path. */
  private readonly methods = new Set<string>();
  private compiled = false;

  add(method: string, pattern: string, route: R): this {
    // `{indexUid}` (the routes' notation, Meilisearch's) is `:indexUid` here.
    this.tree.on(method.toUpperCase() as Method, pattern.replace(/\{(\w+)\}/g, ':$1'), noHandler, route);
    this.methods.add(method.toUpperCase());
    this.compiled = false;
    return this;
  }

  lookup(method: string, path: string): RouteLookup<R> {
    if (!this.compiled) {
      this.tree.compile();
      this.compiled = true;
    }
    // find-my-way ends the path at `#` or `?` (uWS has taken the query off: here they are path
    // characters) and finds nothing for a malformed escape, which router.ts kept as typed.
    let target = path.includes('#') || path.includes('?') ? literalPath(path) : path;
    const found = this.find(method, target) ?? (target.includes('%') ? this.find(method, target = literalPath(target)) : null);
    if (found !== null) return { kind: 'found', match: { route: found.store as R, params: found.params as Record<string, string> } };
    for (const other of this.methods) {
      if (other !== method && this.find(other, target) !== null) return { kind: 'methodNotAllowed' };
    }
    return { kind: 'notFound' };
  }

  private find(method: string, path: string) {
    return this.methods.has(method) ? this.tree.find(method as Method, path) : null;
  }
}

/** `#` and `?` escaped; in a segment that is no valid escape sequence, every `%` escaped (kept as typed). */
function literalPath(path: string): string {
  return path.split('/').map((segment) => {
    let literal = segment;
    try {
      decodeURIComponent(segment);
    } catch {
      literal = segment.replace(/%/g, '%25');
    }
    return literal.replace(/#/g, '%23').replace(/\?/g, '%3F');
  }).join('/');
}

function noHandler(): void {}
