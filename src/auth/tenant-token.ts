// Tenant tokens (auth.md §7): HS256/384/512 JWTs signed with a parent API key's value, carrying
// `apiKeyUid`, `searchRules` and optionally `exp`. Verified with node:crypto (no JWT dependency:
// HMAC JWS verification is a few lines and we need Meilisearch's exact error cases anyway).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { SkeinError } from '../errors/index.js';

/** Index pattern -> extra filter for that index (null: none). */
export type SearchRules = ReadonlyMap<string, unknown>;

export interface TenantClaims {
  apiKeyUid: string;
  searchRules: SearchRules;
  /** Unix seconds; null when absent. */
  exp: number | null;
}

const HASHES: Record<string, string> = { HS256: 'sha256', HS384: 'sha384', HS512: 'sha512' };

/**
 * The claims of a well-formed token (signature NOT yet checked), or null when the text is not a
 * tenant token at all — the caller then treats it as an API key.
 */
export function decodeTenantToken(token: string): (TenantClaims & { algorithm: string; signingInput: string; signature: Buffer }) | null {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  const header = parseJsonPart(parts[0]!);
  const payload = parseJsonPart(parts[1]!);
  if (!header || !payload) return null;
  const algorithm = header.alg;
  if (typeof algorithm !== 'string' || !Object.hasOwn(HASHES, algorithm)) return null;
  if (typeof payload.apiKeyUid !== 'string') return null;
  const searchRules = parseSearchRules(payload.searchRules);
  if (!searchRules) return null;
  let exp: number | null = null;
  if (payload.exp !== undefined && payload.exp !== null) {
    if (typeof payload.exp !== 'number' || !Number.isFinite(payload.exp)) return null;
    exp = payload.exp;
  }
  return {
    apiKeyUid: payload.apiKeyUid, searchRules, exp, algorithm,
    signingInput: `${parts[0]}.${parts[1]}`, signature: Buffer.from(parts[2]!, 'base64url'),
  };
}

/** True when `signature` is the token's HMAC under `secret` (the parent key's value), compared in constant time. */
export function hasValidSignature(token: { algorithm: string; signingInput: string; signature: Buffer }, secret: string): boolean {
  const expected = createHmac(HASHES[token.algorithm]!, secret).update(token.signingInput).digest();
  return expected.length === token.signature.length && timingSafeEqual(expected, token.signature);
}

export function checkNotExpired(claims: Pick<TenantClaims, 'exp'>, nowMillis: number): void {
  if (claims.exp === null) return;
  const now = Math.floor(nowMillis / 1000);
  if (now > claims.exp) {
    throw new SkeinError('invalid_api_key', `Tenant token expired. Was valid up to \`${claims.exp}\` and we're now \`${now}\`.`);
  }
}

/** `["a", "b_*"]` or `{"a": {"filter": ...}, "*": null}`; null when neither. */
export function parseSearchRules(raw: unknown): SearchRules | null {
  if (Array.isArray(raw)) {
    if (!raw.every((item) => typeof item === 'string')) return null;
    return new Map(raw.map((pattern: string) => [pattern, null]));
  }
  if (raw === null || typeof raw !== 'object') return null;
  const rules = new Map<string, unknown>();
  for (const [pattern, rule] of Object.entries(raw as Record<string, unknown>)) {
    if (rule === null) rules.set(pattern, null);
    else if (typeof rule === 'object' && !Array.isArray(rule)) {
      const filter = (rule as { filter?: unknown }).filter;
      rules.set(pattern, filter === undefined ? null : filter);
    } else return null;
  }
  return rules;
}

function parseJsonPart(part: string): Record<string, unknown> | null {
  if (!/^[A-Za-z0-9_-]*$/.test(part)) return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value as Record<string, unknown> : null;
  } catch {
    return null;
  }
}

/**
 * The request filter AND the tenant rule filter, as Meilisearch's fuse_filters: each side becomes an
 * array (a string `s` -> `[s]`) and they are concatenated, because in the array form the top level
 * is AND while a nested array is OR — wrapping an array filter again would change its meaning.
 */
export function fuseFilters(requestFilter: unknown, ruleFilter: unknown): unknown {
  if (ruleFilter === null || ruleFilter === undefined) return requestFilter;
  if (requestFilter === null || requestFilter === undefined) return ruleFilter;
  const asArray = (filter: unknown): unknown[] => (Array.isArray(filter) ? filter : [filter]);
  return [...asArray(requestFilter), ...asArray(ruleFilter)];
}
