// The fuzz corpus: 1,800 real npm packages (name, version, monthly downloads, summary) from a fixed
// slice of the package list (every 120th row), committed as test/http/fixtures/npm-packages.tsv, turned
// into documents with a few deterministic extra fields that the filter grammar can reach (numbers,
// booleans, arrays, nested objects, null, empty values, _geo).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../http/harness.js';

export const CORPUS_PATH = join(REPO_ROOT, 'test/http/fixtures/npm-packages.tsv');

export interface PackageRow {
  name: string;
  version: string;
  downloads: number;
  summary: string;
}

export function readPackages(path = CORPUS_PATH): PackageRow[] {
  const lines = readFileSync(path, 'utf8').split('\n');
  const rows: PackageRow[] = [];
  for (const line of lines.slice(1)) {
    if (line === '') continue;
    const [name, version, downloads, summary = ''] = line.split('\t');
    rows.push({ name, version, downloads: Number(downloads), summary });
  }
  return rows;
}

const CATEGORIES = ['web', 'cli', 'data', 'test', 'ui'];

/** Document `i` of the corpus: same input, same document, on every machine. */
export function packageDocument(row: PackageRow, i: number): Record<string, unknown> {
  const words = row.summary.split(/\s+/).filter((word) => /^[A-Za-z]{3,12}$/.test(word));
  const document: Record<string, unknown> = {
    id: i,
    name: row.name,
    version: row.version,
    downloads: row.downloads,
    summary: row.summary,
    tags: words.slice(0, 3).map((word) => word.toLowerCase()),
    category: CATEGORIES[i % CATEGORIES.length],
    scoped: row.name.startsWith('@'),
    ratio: (i % 97) / 7,
    nested: { level: i % 4, label: `level ${i % 4}`, deep: { flag: i % 3 === 0 } },
    _geo: { lat: -60 + ((i * 37) % 120) + (i % 10) / 10, lng: -170 + ((i * 53) % 340) + (i % 7) / 10 },
  };
  // null / empty / missing, for IS NULL, IS EMPTY and EXISTS.
  if (i % 7 === 0) document.maybe = null;
  else if (i % 7 === 1) document.maybe = '';
  else if (i % 7 === 2) document.maybe = [];
  else if (i % 7 === 3) document.maybe = {};
  else if (i % 7 === 4) document.maybe = i;
  // i % 7 in {5, 6}: no field at all
  return document;
}

export function corpusDocuments(path = CORPUS_PATH): Array<Record<string, unknown>> {
  return readPackages(path).map(packageDocument);
}

/** Fields of the corpus documents, for random attribute names. */
export const CORPUS_FIELDS = [
  'id', 'name', 'version', 'downloads', 'summary', 'tags', 'category', 'scoped', 'ratio', 'nested', 'nested.level',
  'nested.label', 'nested.deep', 'nested.deep.flag', '_geo', 'maybe',
];

export const FUZZ_SETTINGS = {
  filterableAttributes: ['id', 'name', 'version', 'downloads', 'tags', 'category', 'scoped', 'ratio', 'nested', 'maybe', '_geo'],
  sortableAttributes: ['downloads', 'name', 'ratio', '_geo', 'id'],
  searchableAttributes: ['name', 'summary', 'tags', 'nested.label'],
};
