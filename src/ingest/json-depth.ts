// serde_json stops at 128 levels of nested arrays and objects ("recursion limit exceeded at line L
// column C"), which Meilisearch answers as malformed_payload. Skein's parser (V8's JSON.parse) takes any
// depth, but much of what then walks the value recurses: a body nested 100,000 levels overflowed the
// stack (a 500) on every JSON route. One linear pass over the text, before parsing, refuses it as
// serde would.
import { lineAndColumn } from './json-syntax-error.js';

/** Nesting serde_json accepts: its remaining-depth counter starts at 128 and fails on reaching 0. */
export const MAX_JSON_DEPTH = 127;

/**
 * serde's description of the first place `text` nests deeper than MAX_JSON_DEPTH, or null. Strings
 * are skipped (brackets inside them do not count); the text need not be valid JSON (an unterminated
 * string ends the scan: the parser reports it). About a quarter of JSON.parse's time.
 */
export function jsonDepthProblem(text: string, maxDepth = MAX_JSON_DEPTH): string | null {
  let depth = 0;
  const length = text.length;
  for (let at = 0; at < length; at++) {
    const code = text.charCodeAt(at);
    if (code === 0x22) {
      // Skip the string: its closing quote is the next one not escaped (an even run of backslashes before it).
      let end = at;
      for (;;) {
        end = text.indexOf('"', end + 1);
        if (end < 0) return null;
        let backslashes = 0;
        while (text.charCodeAt(end - 1 - backslashes) === 0x5c) backslashes++;
        if (backslashes % 2 === 0) break;
      }
      at = end;
    } else if (code === 0x5b || code === 0x7b) {
      if (++depth > maxDepth) {
        const { line, column } = lineAndColumn(text, at);
        return `recursion limit exceeded at line ${line} column ${column}`;
      }
    } else if (code === 0x5d || code === 0x7d) {
      if (depth > 0) depth--;
    }
  }
  return null;
}
