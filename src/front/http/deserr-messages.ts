// The wording of Meilisearch's deserialization errors (the deserr crate), for JSON bodies and
// query strings, so clients that snapshot messages see the same text.
import { echo, echoJson, SkeinError, type ErrorCode } from '../../errors/index.js';

/** "a string", "a positive integer", ... as deserr names the kind of a JSON value. */
export function describeKind(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return 'a boolean';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) return 'a number';
    return value < 0 ? 'a negative integer' : 'a positive integer';
  }
  if (Array.isArray(value)) return 'an array';
  return 'an object';
}

/** `path` is deserr's location (`.limit`, `.ranking[0]`); '' or '.' is the root, which deserr does not name. */
export function invalidValueType(code: ErrorCode, path: string, expected: string, found: unknown): SkeinError {
  const location = path === '' || path === '.' ? '' : ` at \`${echo(path)}\``;
  return new SkeinError(code,
    `Invalid value type${location}: expected ${expected}, but found ${describeKind(found)}: \`${echoJson(found)}\``);
}

export function unknownField(field: string, expected: readonly string[], code: ErrorCode = 'bad_request'): SkeinError {
  return new SkeinError(code, `Unknown field \`${echo(field)}\`: expected one of ${expected.map((name) => `\`${name}\``).join(', ')}`);
}

export function missingField(code: ErrorCode, field: string): SkeinError {
  return new SkeinError(code, `Missing field \`${field}\``);
}

export function unknownValue(code: ErrorCode, path: string, value: string, expected: readonly string[]): SkeinError {
  return new SkeinError(code,
    `Unknown value \`${echo(value)}\` at \`${path}\`: expected one of ${expected.map((name) => `\`${name}\``).join(', ')}`);
}

export function unknownParameter(name: string, expected: readonly string[]): SkeinError {
  return new SkeinError('bad_request',
    `Unknown parameter \`${echo(name)}\`: expected one of ${expected.map((param) => `\`${param}\``).join(', ')}`);
}

export function invalidParameter(code: ErrorCode, name: string, value: string, expected: string): SkeinError {
  return new SkeinError(code, `Invalid value in parameter \`${name}\`: could not parse \`${echo(value)}\` as ${expected}`);
}

export function unknownParameterValue(code: ErrorCode, name: string, value: string, expected: readonly string[]): SkeinError {
  return new SkeinError(code,
    `Unknown value \`${echo(value)}\` for parameter \`${name}\`: expected one of ${expected.map((item) => `\`${item}\``).join(', ')}`);
}

/** Rejects query parameters a route does not declare, as deserr's deny_unknown_fields does. */
export function denyUnknownParameters(query: URLSearchParams, allowed: readonly string[]): void {
  for (const name of query.keys()) if (!allowed.includes(name)) throw unknownParameter(name, allowed);
}

/** Rejects object keys a body does not declare. */
export function denyUnknownFields(body: Record<string, unknown>, allowed: readonly string[]): void {
  for (const name of Object.keys(body)) if (!allowed.includes(name)) throw unknownField(name, allowed);
}

/** A non-negative integer query parameter (usize), or the default when absent. */
export function usizeParameter(query: URLSearchParams, name: string, fallback: number, code: ErrorCode): number {
  const raw = query.get(name);
  if (raw === null) return fallback;
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw invalidParameter(code, name, raw, 'a positive integer');
  return Number(raw);
}

export function booleanParameter(query: URLSearchParams, name: string, code: ErrorCode): boolean | undefined {
  const raw = query.get(name);
  if (raw === null) return undefined;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw new SkeinError(code,
    `Invalid value in parameter \`${name}\`: could not parse \`${echo(raw)}\` as a boolean, expected either \`true\` or \`false\``);
}

/** Comma-separated list parameter; null when absent. */
export function listParameter(query: URLSearchParams, name: string): string[] | null {
  const raw = query.get(name);
  if (raw === null) return null;
  return raw.split(',').map((item) => item.trim()).filter((item) => item.length > 0);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
