// Filter / facet / sort / geo query cost relative to a plain query, on one ShardEngine (no HTTP, one
// thread) holding N synthetic documents in 4 shards. Prints the median ms of each kind and its ratio.
// Run: npx tsc -p tsconfig.json && node dist/bench/filter-figures.js [documents=100000]
import { ShardEngine, type JsonDocument } from '../src/shard/shard-engine.js';

const count = Number(process.argv[2] ?? 100_000);
const SHARDS = 4;
const WORDS = ['lamp', 'house', 'garden', 'river', 'stone', 'light', 'night', 'blue', 'green', 'road', 'city', 'music', 'winter', 'summer'];
const GENRES = ['Action', 'Drama', 'Comedy', 'Horror', 'Romance', 'Sci-Fi', 'Documentary', 'Animation'];

let seed = 7;
const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;

function* documents(): Generator<[number, JsonDocument]> {
  for (let id = 0; id < count; id++) {
    yield [id, {
      id, title: `${pick(WORDS)} ${pick(WORDS)} ${pick(WORDS)}`, genre: pick(GENRES), price: Math.round(random() * 100_000) / 100,
      year: 1950 + Math.floor(random() * 75), tags: [pick(WORDS), pick(WORDS)], brand: `brand-${Math.floor(random() * 2000)}`,
      _geo: { lat: 40 + random() * 10, lng: random() * 10 },
    }];
  }
}

const engine = new ShardEngine(0, 1);
const started = performance.now();
engine.loadIndex('figures', SHARDS, {
  filterableAttributes: ['genre', 'price', 'year', 'tags', 'brand', '_geo'],
  sortableAttributes: ['price', 'year', 'brand', '_geo'],
}, documents());
console.log(`loaded ${count} documents in ${Math.round(performance.now() - started)} ms`);

const shards = Array.from({ length: SHARDS }, (_, k) => k);
const QUERIES: Record<string, [string | null, Record<string, unknown>]> = {
  'plain placeholder': [null, {}],
  'plain q=lamp': ['lamp', {}],
  'filter genre = Drama': [null, { filter: 'genre = Drama' }],
  'filter price 100 TO 900 (wide range)': [null, { filter: 'price 100 TO 900' }],
  'filter complex AND/OR/NOT': [null, { filter: '(genre = Drama OR genre = Horror) AND year > 1990 AND NOT tags = lamp' }],
  'filter + q=lamp': ['lamp', { filter: 'year >= 2000 AND price < 500' }],
  'facets genre,year,tags': [null, { facets: ['genre', 'year', 'tags'] }],
  'facets brand (2000 values)': [null, { facets: ['brand'] }],
  'facets + q=lamp': ['lamp', { facets: ['genre', 'year'] }],
  'sort price:asc': [null, { sort: ['price:asc'] }],
  'sort brand:desc (strings)': [null, { sort: ['brand:desc'] }],
  'sort + q=lamp': ['lamp', { sort: ['price:desc'] }],
  'geo radius 100 km': [null, { filter: '_geoRadius(45, 5, 100000)' }],
  'geo sort _geoPoint': [null, { sort: ['_geoPoint(45, 5):asc'] }],
  'distinct brand': [null, { distinct: 'brand' }],
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const results: [string, number][] = [];
for (const [name, [q, options]] of Object.entries(QUERIES)) {
  const times: number[] = [];
  for (let run = 0; run < 15; run++) {
    const start = performance.now();
    engine.search({ indexUid: 'figures', shards, q, hitsWanted: 20, matchingStrategy: 'last', options });
    times.push(performance.now() - start);
  }
  results.push([name, median(times.slice(3))]);
}
const base = results[0]![1];
const baseQ = results[1]![1];
for (const [name, ms] of results) {
  const reference = name.includes('q=lamp') ? baseQ : base;
  console.log(`${name.padEnd(40)} ${ms.toFixed(2).padStart(8)} ms   x${(ms / reference).toFixed(1)} vs ${name.includes('q=lamp') ? 'plain q' : 'placeholder'}`);
}
