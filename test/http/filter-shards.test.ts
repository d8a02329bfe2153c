// Merge exactness: the same documents and queries give identical hits, counts, facet distributions
// and facet stats with 1 shard and with several shards over several workers.
import test from 'ava';
import { startTestServer, type TestServer } from './harness.js';

let single: TestServer;
let sharded: TestServer;

function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const WORDS = ['lamp', 'house', 'garden', 'river', 'stone', 'light', 'night', 'blue', 'green', 'road'];
const GENRES = ['Action', 'action', 'Drama', 'Comédie', 'Sci-Fi', ' drama '];

function dataset(count: number): Record<string, unknown>[] {
  const random = seededRandom(42);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const documents: Record<string, unknown>[] = [];
  for (let id = 1; id <= count; id++) {
    const document: Record<string, unknown> = {
      id,
      title: `${pick(WORDS)} ${pick(WORDS)} ${pick(WORDS)}`,
      genre: pick(GENRES),
      brand: `b${Math.floor(random() * 25)}`,
    };
    const roll = random();
    if (roll < 0.7) document.price = Math.round(random() * 1000) / 10;
    else if (roll < 0.8) document.price = pick(['cheap', 'Expensive', 'free']);
    else if (roll < 0.9) document.price = null;
    if (random() < 0.6) document.tags = [pick(WORDS), pick(WORDS)];
    if (random() < 0.7) document._geo = { lat: random() * 10 + 40, lng: random() * 10 };
    documents.push(document);
  }
  return documents;
}

const SETTINGS = {
  filterableAttributes: ['genre', 'price', 'tags', 'brand', '_geo'],
  sortableAttributes: ['price', 'title', 'brand', '_geo'],
};

test.before(async () => {
  [single, sharded] = await Promise.all([
    startTestServer({ shardsPerIndex: 1, workers: 1 }),
    startTestServer({ shardsPerIndex: 5, workers: 2 }),
  ]);
  const documents = dataset(400);
  for (const server of [single, sharded]) {
    await server.client.run('PATCH', '/indexes/merge/settings', { body: SETTINGS });
    await server.client.addDocuments('merge', documents);
  }
});
test.after.always(async () => {
  await Promise.all([single?.close(), sharded?.close()]);
});

const QUERIES: Record<string, unknown>[] = [
  { facets: ['genre', 'price', 'tags', 'brand'], limit: 50 },
  { q: 'lamp', facets: ['*'] },
  { q: 'garden river', filter: 'price > 20', sort: ['price:desc'], facets: ['genre'] },
  { filter: 'genre = action OR tags IN [blue, green]', sort: ['price:asc', 'title:desc'], limit: 100 },
  { filter: ['price 10 TO 60', ['genre = drama', 'genre = "sci-fi"']], sort: ['title:asc'], hitsPerPage: 15, page: 2 },
  { filter: 'price NOT EXISTS OR price IS NULL', sort: ['brand:desc'], limit: 40 },
  { filter: '_geoRadius(45, 5, 300000)', sort: ['_geoPoint(45, 5):asc'], limit: 60, facets: ['genre'] },
  { filter: '_geoBoundingBox([48, 8], [42, 1])', sort: ['_geoPoint(44, 3):desc', 'price:asc'], limit: 30 },
  { sort: ['price:desc'], offset: 100, limit: 50 },
  { q: 'stone', sort: ['price:asc'], limit: 80 },
  { distinct: 'brand', sort: ['price:asc'], limit: 30 },
  { q: 'light', distinct: 'brand', facets: ['brand'], hitsPerPage: 10, page: 1 },
  { filter: 'NOT genre = action AND price >= 50', facets: ['price'], limit: 0 },
];

const comparable = (body: Record<string, unknown>) => ({ ...body, processingTimeMs: 0 });

for (const [k, query] of QUERIES.entries()) {
  test(`1 shard and 5 shards agree: query ${k} ${JSON.stringify(query)}`, async (t) => {
    const [one, many] = await Promise.all([single, sharded].map((server) => server.client.post('/indexes/merge/search', query)));
    t.is(one!.status, 200, one!.text);
    t.is(many!.status, 200, many!.text);
    // With distinct too: the count is the union of the shards' distinct values, so it agrees exactly.
    t.deepEqual(comparable(one!.body), comparable(many!.body));
    t.true(one!.body.hits.length > 0 || query.limit === 0);
  });
}
