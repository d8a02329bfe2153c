// The cluster tests' real text: npm packages of the committed sample (name, summary, downloads and two
// facets) and seeded queries from their own words (single words, pairs, prefixes, typos, empty), with
// facets, filters, sort, pages, the frequency strategy and distinct: sharding.test and rebalance.test
// compare their answers with one node's. The figures (rebalance-figures.ts, sharding-figures.ts) read
// the same rows from the full list (npmPackages), through the same loader.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './local-cluster.js';

/** The full list of npm packages (about 227,000 rows; on every machine, CI included). */
export const NPM_TSV = '/work/.library/env/packages/npm.tsv';

/** The sample's packages; `idOf` names the i-th one. */
export function packages(idOf: (i: number) => string | number = (i) => i): Array<Record<string, unknown>> {
  return loadPackages(join(REPO_ROOT, 'test/http/fixtures/npm-packages.tsv'), Number.POSITIVE_INFINITY, idOf);
}

/** The first `rows` packages of the full list, ids 0, 1, ... */
export function npmPackages(rows: number): Array<Record<string, unknown>> {
  return loadPackages(NPM_TSV, rows, (i) => i);
}

/** The one loader: a TSV of name, version, downloads, summary (a header line first). */
function loadPackages(path: string, rows: number, idOf: (i: number) => string | number): Array<Record<string, unknown>> {
  const lines = readFileSync(path, 'utf8').split('\n').slice(1, rows === Number.POSITIVE_INFINITY ? undefined : rows + 1).filter(Boolean);
  return lines.map((line, i) => {
    const [name, version, downloads, summary] = line.split('\t');
    return { id: idOf(i), name, version, downloads: Number(downloads), summary: summary ?? '', scope: name!.startsWith('@') ? name!.split('/')[0] : 'none',
      band: Number(downloads) > 100_000 ? 'high' : Number(downloads) > 1000 ? 'mid' : 'low' };
  });
}

/** Seeded queries from the documents' own words: single words, pairs, prefixes, typos, with facets, filters, sort and pages. */
export function queries(docs: Array<Record<string, unknown>>, count: number): Array<Record<string, unknown>> {
  let seed = 42;
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const words = [...new Set(docs.flatMap((doc) => `${doc.name} ${doc.summary}`.toLowerCase().split(/[^a-z0-9]+/)).filter((word) => word.length > 2))];
  const pick = () => words[Math.floor(random() * words.length)]!;
  const out: Array<Record<string, unknown>> = [];
  for (let i = 0; i < count; i++) {
    const kind = i % 8;
    let q = kind === 0 ? pick() : kind === 1 ? `${pick()} ${pick()}` : kind === 2 ? pick().slice(0, 3) : kind === 3 ? pick().replace(/[aeiou]/, 'x') : pick();
    if (kind === 7) q = '';
    const query: Record<string, unknown> = { q };
    if (i % 3 === 0) query.facets = ['band', 'scope'];
    if (i % 5 === 0) query.filter = 'downloads > 1000';
    if (i % 7 === 0) query.sort = ['downloads:desc'];
    if (i % 4 === 1) Object.assign(query, { offset: 3, limit: 9 });
    if (i % 11 === 0) Object.assign(query, { page: 2, hitsPerPage: 5 });
    if (i % 13 === 0) query.matchingStrategy = 'frequency';
    if (i % 17 === 0) query.distinct = 'band';
    out.push(query);
  }
  return out;
}
