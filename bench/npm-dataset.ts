// Dataset "npm": real npm package metadata from npm.tsv (name, version, downloads_a_month, summary; ~227,000
// rows, header first): the names and one-line summaries people actually search. Document i is row
// order[i] of a seeded permutation of every row (the file is sorted by name; the first rows alone would be
// all scoped @-packages), with id i. Above the row count (a 1M variant) rows repeat with distinct ids.
// The rows after the first `documents` of the permutation are the "further rows" the mixed workload
// writes while searching (npmFurtherDocument).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchDocument, Dataset, DatasetSpec } from './dataset.js';
import { SeededRandom, deriveSeed } from './seeded-random.js';
import { ZipfSampler } from './zipf-sampler.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** The full list on every machine; the committed 1,800-row sample when it is absent. */
export const npmTsvCandidates = ['/work/.library/env/packages/npm.tsv', join(repoRoot, 'test', 'http', 'fixtures', 'npm-packages.tsv')];

export interface NpmRow {
  name: string;
  version: string;
  downloads: number;
  summary: string;
}

/** Lowercase words of a text: runs of letters and digits (what the quality checks and the query builder see). */
export function textWords(text: string): string[] {
  return text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((word) => word.length > 0);
}

// Summaries of some rows start with "[tested here: ...]", a note from this machine's tests, not the authors.
const testedHereNote = /^\[tested here:[^\]]*\]\s*/;

export function parseNpmTsv(text: string): NpmRow[] {
  const rows: NpmRow[] = [];
  const lines = text.split('\n');
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    if (line.length === 0) continue;
    const [name, version = '', downloads = '0', summary = ''] = line.split('\t');
    if (!name) continue;
    rows.push({ name, version, downloads: Number(downloads) || 0, summary: summary.replace(testedHereNote, '').trim() });
  }
  return rows;
}

export function npmTsvPath(): string {
  const fromEnvironment = process.env.SKEIN_BENCH_NPM_TSV;
  if (fromEnvironment) return fromEnvironment;
  const found = npmTsvCandidates.find((path) => existsSync(path));
  if (!found) throw new Error(`dataset npm: none of ${npmTsvCandidates.join(', ')} exists (or set SKEIN_BENCH_NPM_TSV)`);
  return found;
}

export interface NpmDataset extends Dataset {
  readonly rowCount: number;
  /** How often each word occurs over the documents' names and summaries. */
  readonly wordCounts: ReadonlyMap<string, number>;
  /** The k-th row after the dataset's documents (wrapping), as a document with id `id`: new documents to write. */
  furtherDocument(k: number, id: number): BenchDocument;
}

function shuffledOrder(count: number, seed: number): Uint32Array {
  const order = new Uint32Array(count);
  for (let i = 0; i < count; i++) order[i] = i;
  const random = new SeededRandom(deriveSeed(seed, 'npm-order'));
  for (let i = count - 1; i > 0; i--) {
    const j = random.int(0, i);
    const swap = order[i];
    order[i] = order[j];
    order[j] = swap;
  }
  return order;
}

export function createNpmDataset(spec: DatasetSpec, rows: readonly NpmRow[] = parseNpmTsv(readFileSync(npmTsvPath(), 'utf8'))): NpmDataset {
  if (rows.length === 0) throw new Error('dataset npm: no rows');
  const order = shuffledOrder(rows.length, spec.seed);
  const rowAt = (index: number) => rows[order[index % rows.length]];
  const toDocument = (row: NpmRow, id: number): BenchDocument => ({ id, name: row.name, summary: row.summary, version: row.version, downloads: row.downloads });

  const counts = new Map<string, number>();
  for (let i = 0; i < Math.min(spec.documents, rows.length); i++) {
    const row = rowAt(i);
    for (const word of textWords(`${row.name} ${row.summary}`)) counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  const vocabulary = [...counts.keys()].sort((a, b) => counts.get(b)! - counts.get(a)! || (a < b ? -1 : 1));
  return {
    spec,
    primaryKey: 'id',
    vocabulary,
    wordSampler: new ZipfSampler(Math.max(1, vocabulary.length), spec.zipfExponent),
    rowCount: rows.length,
    wordCounts: counts,
    documentAt: (index) => toDocument(rowAt(index), index),
    queryableWordsAt: (index) => {
      const row = rowAt(index);
      const words = textWords(`${row.name} ${row.summary}`);
      return words.length > 0 ? words : [vocabulary[0] ?? 'npm'];
    },
    furtherDocument: (k, id) => toDocument(rowAt(Math.min(spec.documents, rows.length) + (k % Math.max(1, rows.length - Math.min(spec.documents, rows.length)))), id),
  };
}
