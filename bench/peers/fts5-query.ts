// The FTS5 MATCH expression of a search box query (sqlite-peer.ts).

/** `"word1" "word2" "last"*`: every word quoted, so no query text is an FTS5 operator; the last word a prefix. */
export function fts5Query(q: string): string | null {
  const words = q.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((word) => word.length > 0);
  if (words.length === 0) return null;
  return words.map((word, i) => `"${word}"${i === words.length - 1 ? '*' : ''}`).join(' ');
}
