// Damerau-Levenshtein distances (optimal string alignment: a transposition costs 1), over code points.

export function editDistance(a: readonly string[], b: readonly string[]): number {
  const rows = distanceTable(a, b);
  return rows[a.length]![b.length]!;
}

/** The best distance of `query` to any prefix of `word`, and that prefix's length. */
export function prefixEditDistance(query: readonly string[], word: readonly string[]): { distance: number; length: number } {
  const rows = distanceTable(query, word);
  const last = rows[query.length]!;
  let length = 0;
  for (let j = 1; j < last.length; j++) if (last[j]! < last[length]! || (last[j] === last[length] && j <= query.length)) length = j;
  return { distance: last[length]!, length };
}

function distanceTable(a: readonly string[], b: readonly string[]): number[][] {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row = new Array<number>(b.length + 1);
    row[0] = i;
    rows.push(row);
  }
  for (let j = 0; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows;
}

/**
 * editDistance and prefixEditDistance over UTF-16 units, for strings without surrogates (where a unit
 * is a code point: the same answers, query-matcher.ts checks), in one table kept for the next call:
 * the highlighter compares every distinct word of a search's hits with each query word, and the
 * code-point arrays and row arrays made per comparison were most of its cost. Owner: a shard worker
 * thread's hit shaping (worker.ts, lent to each search's matcher: a call fills and reads it whole), or
 * one matcher; size: the largest (query word + 1) × (document word + 1) seen, 4 bytes each (words past
 * 250 bytes are neither queried nor matched: at most ~250 KiB), made at the first comparison (a new typed
 * array per search cost ~10 µs of it).
 */
const EMPTY_TABLE = new Int32Array(0);

export class UnitDistances {
  private table = EMPTY_TABLE;

  /** editDistance of `a` and `b` (BMP-only strings). */
  distance(a: string, b: string): number {
    const columns = b.length + 1;
    this.fill(a, b);
    return this.table[a.length * columns + b.length]!;
  }

  /** prefixEditDistance of `query` and `word` (BMP-only strings): the best distance to a prefix of `word`, and its length. */
  prefixDistance(query: string, word: string): { distance: number; length: number } {
    const columns = word.length + 1;
    this.fill(query, word);
    const table = this.table;
    const last = query.length * columns;
    let length = 0;
    for (let j = 1; j < columns; j++) {
      const value = table[last + j]!;
      const best = table[last + length]!;
      if (value < best || (value === best && j <= query.length)) length = j;
    }
    return { distance: table[last + length]!, length };
  }

  /** distanceTable's rows, one after the other. */
  private fill(a: string, b: string): void {
    const columns = b.length + 1;
    const size = (a.length + 1) * columns;
    if (size > this.table.length) this.table = new Int32Array(Math.max(size, this.table.length * 2, 256));
    const table = this.table;
    for (let j = 0; j < columns; j++) table[j] = j;
    for (let i = 1; i <= a.length; i++) {
      const row = i * columns;
      table[row] = i;
      const ai = a.charCodeAt(i - 1);
      for (let j = 1; j < columns; j++) {
        const bj = b.charCodeAt(j - 1);
        const cost = ai === bj ? 0 : 1;
        let best = Math.min(table[row - columns + j]! + 1, table[row + j - 1]! + 1, table[row - columns + j - 1]! + cost);
        if (i > 1 && j > 1 && ai === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === bj) best = Math.min(best, table[row - 2 * columns + j - 2]! + 1);
        table[row + j] = best;
      }
    }
  }
}
