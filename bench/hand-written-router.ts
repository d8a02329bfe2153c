// The hand-written router src/front/http/router.ts had before find-my-way, kept as the micro-benchmark's
// baseline (bench/front-libraries-micro.ts). Method + path pattern -> route.
import type { RouteLookup, RouteMatch } from '../src/front/http/router.js';

interface CompiledPattern<R> {
  method: string;
  segments: Array<{ literal: string } | { param: string }>;
  route: R;
}

export class HandWrittenRouter<R> {
  /** Patterns bucketed by segment count: a path only ever matches patterns of its own length. */
  private readonly patternsByLength = new Map<number, CompiledPattern<R>[]>();

  add(method: string, pattern: string, route: R): this {
    const segments = splitPath(pattern).map((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment);
      return param ? { param: param[1]! } : { literal: segment };
    });
    const bucket = this.patternsByLength.get(segments.length) ?? [];
    bucket.push({ method: method.toUpperCase(), segments, route });
    this.patternsByLength.set(segments.length, bucket);
    return this;
  }

  /** Literal segments win over parameters, so `/documents/delete-batch` is not a document id. */
  lookup(method: string, path: string): RouteLookup<R> {
    const parts = splitPath(path);
    let best: { match: RouteMatch<R>; literals: number } | null = null;
    let pathExists = false;
    for (const pattern of this.patternsByLength.get(parts.length) ?? []) {
      const matched = matchSegments(pattern.segments, parts);
      if (!matched) continue;
      pathExists = true;
      if (pattern.method !== method) continue;
      if (!best || matched.literals > best.literals) {
        best = { match: { route: pattern.route, params: matched.params }, literals: matched.literals };
      }
    }
    if (best) return { kind: 'found', match: best.match };
    return pathExists ? { kind: 'methodNotAllowed' } : { kind: 'notFound' };
  }
}

/** Path segments, percent-decoded; a trailing slash is ignored as actix' NormalizePath does. */
export function splitPath(path: string): string[] {
  return path.split('/').filter((segment) => segment.length > 0).map(decodeSegment);
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function matchSegments(
  segments: CompiledPattern<unknown>['segments'],
  parts: string[],
): { params: Record<string, string>; literals: number } | null {
  const params: Record<string, string> = {};
  let literals = 0;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    if ('literal' in segment) {
      if (segment.literal !== parts[i]) return null;
      literals++;
    } else {
      params[segment.param] = parts[i]!;
    }
  }
  return { params, literals };
}
