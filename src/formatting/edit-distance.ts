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
