// Filter errors in Meilisearch's shape: the diagnostic, a newline, then `startColumn:endColumn source`
// (1-based columns counted in characters) so the client sees which part of the expression failed.
import { SkeinError, type ErrorCode } from '../errors/index.js';
import type { Token } from './filter-ast.js';

export type FilterErrorCode = Extract<ErrorCode, 'invalid_search_filter' | 'invalid_document_filter'>;

/** Raised by the parser before the caller's error code is known; converted by toSkeinError. */
export class FilterSyntaxError extends Error {
  constructor(readonly diagnostic: string, readonly source: string, readonly start: number, readonly end: number,
    readonly shownFrom?: number) {
    super(positionedMessage(diagnostic, source, start, end, shownFrom));
  }
}

/** `shownFrom`: the text shown starts there (a `_foreign(..)` condition's, Token.shownFrom); columns count from the start. */
export function positionedMessage(diagnostic: string, source: string, start: number, end: number, shownFrom = 0): string {
  const startColumn = charCount(source.slice(0, start)) + 1;
  const endColumn = startColumn + charCount(source.slice(start, end));
  return `${diagnostic}\n${startColumn}:${endColumn} ${source.slice(shownFrom)}`;
}

export function errorAtToken(code: FilterErrorCode, diagnostic: string, token: Token): SkeinError {
  return new SkeinError(code, positionedMessage(diagnostic, token.source, token.start, token.end, token.shownFrom));
}

/** `\n` and other control characters are escaped so the diagnostic stays on the first line. */
export function escapeDebug(text: string): string {
  return JSON.stringify(text).slice(1, -1).replace(/\\"/g, '"');
}

function charCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}
