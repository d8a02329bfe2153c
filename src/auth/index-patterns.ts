// Index restrictions of keys and tenant tokens (auth.md §6-§7): `*`, exact uids, or a uid prefix
// followed by one trailing `*`.

export function matchesIndexPattern(pattern: string, indexUid: string): boolean {
  if (pattern.endsWith('*')) return indexUid.startsWith(pattern.slice(0, -1));
  return pattern === indexUid;
}

export function allowsIndex(patterns: readonly string[], indexUid: string): boolean {
  return patterns.some((pattern) => matchesIndexPattern(pattern, indexUid));
}

export function allowsEveryIndex(patterns: readonly string[]): boolean {
  return patterns.includes('*');
}

/**
 * The most specific pattern matching the uid: the exact name, else the longest pattern
 * (tenant-token searchRules, auth.md §7); undefined when none matches.
 */
export function mostSpecificPattern(patterns: Iterable<string>, indexUid: string): string | undefined {
  let best: string | undefined;
  for (const pattern of patterns) {
    if (!matchesIndexPattern(pattern, indexUid)) continue;
    if (pattern === indexUid) return pattern;
    if (best === undefined || pattern.length > best.length) best = pattern;
  }
  return best;
}

const UID_PREFIX = /^[A-Za-z0-9_-]*$/;

/** A valid index pattern: `*`, a valid uid, or a valid uid prefix followed by `*`. */
export function isValidIndexPattern(pattern: string): boolean {
  const body = pattern.endsWith('*') ? pattern.slice(0, -1) : pattern;
  if (!UID_PREFIX.test(body) || Buffer.byteLength(body) > 400) return false;
  return pattern.endsWith('*') || body.length > 0;
}
