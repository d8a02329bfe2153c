// A facet in alpha order needs from each shard its first maxValuesPerFacet values only (facetPartials'
// FacetCut: strings walked in alpha order, numbers until the N-th, the rest cut); a worker holding every
// shard of the index cuts its merged counts in either order (keepFirstValues). Held here to the plain
// definition (every value counted in every shard, merged and shaped by the front) on random values
// (numbers, strings that read as numbers, spellings of one key, values cut to one key at 468 bytes,
// booleans, arrays), random shard layouts, candidates, limits and writes between searches.
import test from 'ava';
import roaring from 'roaring';
import { SeededRandom } from '../../bench/seeded-random.js';
import { facetDistributionJson, mergeFacetExtras } from '../../src/front/search/facet-merge.js';
import { facetPartials, keepFirstValues, type FacetCut } from '../../src/shard/facets/facet-distribution.js';
import { FacetStore } from '../../src/shard/facets/facet-store.js';
import { SearchBudget } from '../../src/shard/search/search-budget.js';

const { RoaringBitmap32 } = roaring;

const NUMBERS = [0, 1, 1.5, -2, 10, 100, 9, 1e21, -0];
const NUMERIC_STRINGS = ['1', '1.0', '01', '10', '9', '-2', ' 3 ', '0x1f', '1e5', '1E5', '100000', '\uff12', '\u00b2', '2'];
const WORDS = ['Action', 'action', 'ACTION', 'caf\u00e9', 'cafe', 'Cafe\u0301', 'zebra', 'apple', 'Apple', 'b', '', 'true', 'Infinity', 'NaN', '-'];
const LONG = ['x'.repeat(470) + 'a', 'x'.repeat(470) + 'b', 'X'.repeat(470) + 'c', '\u00e9'.repeat(240) + 'z', '\u00e9'.repeat(240) + 'y'];

function value(random: SeededRandom, depth = 0): unknown {
  const kind = random.int(0, 9);
  if (kind <= 2) return random.pick(NUMBERS);
  if (kind <= 4) return random.pick(NUMERIC_STRINGS);
  if (kind <= 6) return random.pick(WORDS);
  if (kind === 7) return random.pick(LONG);
  if (kind === 8) return random.chance(0.5);
  if (depth > 0) return null;
  return Array.from({ length: random.int(0, 3) }, () => value(random, 1));
}

/** Strings only (no numbers to merge with): many distinct values, a few frequent. */
function word(random: SeededRandom): string {
  return random.chance(0.3) ? random.pick(WORDS) : `w${random.int(0, 60)}`;
}

interface Layout {
  stores: FacetStore[];
  docsOf: number[][];
}

function layout(random: SeededRandom): Layout {
  const shardCount = random.int(1, 4);
  const stores = Array.from({ length: shardCount }, () => new FacetStore(() => true, false));
  const docsOf: number[][] = Array.from({ length: shardCount }, () => []);
  const documents = random.int(0, 240);
  for (let id = 0; id < documents; id++) {
    const shard = random.int(0, shardCount - 1);
    stores[shard]!.upsert(id, { f: value(random), g: random.int(0, 40), h: word(random) });
    docsOf[shard]!.push(id);
  }
  return { stores, docsOf };
}

function candidatesOf(random: SeededRandom, docs: number[]): roaring.RoaringBitmap32 {
  const share = random.pick([0.02, 0.2, 0.6, 1]);
  return new RoaringBitmap32(docs.filter(() => random.next() < share));
}

type Orders = Record<string, 'alpha' | 'count'>;

/**
 * What the front answers: each shard's partials merged, shaped at `limit` in each facet's order. `whole`: one
 * worker holds every shard, sums its shards' counts by spelling (shaped-search.ts mergePartials) and cuts them
 * (keepFirstValues) before the front.
 */
function answer(layout: Layout, candidates: roaring.RoaringBitmap32[], limit: number, orders: Orders, cut: FacetCut | null,
  stringsOnly: boolean, valueFilter: ((value: string) => boolean) | undefined): string {
  // (as searchShards: a worker holding the whole index in one shard cuts count order in that shard)
  const shardCut = cut === null ? null : { ...cut, soleShard: cut.whole && layout.stores.length === 1 };
  let partials = layout.stores.map((store, shard) =>
    facetPartials(store, candidates[shard]!, ['f', 'g', 'h'], SearchBudget.unbounded(), stringsOnly, valueFilter, shardCut));
  if (cut?.whole === true) {
    const summed: Record<string, Record<string, number>> = {};
    for (const partial of partials) {
      for (const [facet, counts] of Object.entries(partial.facetDistribution)) {
        const into = (summed[facet] ??= {});
        for (const [value, count] of Object.entries(counts)) into[value] = (into[value] ?? 0) + count;
      }
    }
    keepFirstValues(summed, cut);
    partials = [{ facetDistribution: summed, facetStats: mergeFacetExtras(partials)?.facetStats ?? {} }];
  }
  const merged = mergeFacetExtras(partials);
  const faceting = { maxValuesPerFacet: limit, sortFacetValuesBy: orders };
  return facetDistributionJson(merged?.facetDistribution ?? {}, faceting) + JSON.stringify(merged?.facetStats ?? {});
}

test('a cut answers what every value counted answers (alpha order per shard; either order over every shard)', (t) => {
  for (let seed = 1; seed <= 400; seed++) {
    const random = new SeededRandom(seed);
    const shards = layout(random);
    for (let round = 0; round < 3; round++) {
      const limit = random.pick([0, 1, 2, 3, 5, 8, 100]);
      // Alpha order alone, or (one worker holding every shard) each facet in either order.
      const whole = random.chance(0.4);
      const pickOrder = () => random.pick(['alpha', 'count'] as const);
      const orders: Orders = whole ? { f: pickOrder(), g: pickOrder(), h: pickOrder() } : { '*': 'alpha' };
      const cut: FacetCut = { maxValues: limit, orderOf: (facet) => orders[facet] ?? 'alpha', whole };
      const candidates = shards.docsOf.map((docs) => candidatesOf(random, docs));
      const stringsOnly = random.chance(0.25);
      const letter = random.pick(['a', '1', 'x', 'e']);
      const valueFilter = random.chance(0.25) ? (spelling: string) => spelling.toLowerCase().includes(letter) : undefined;
      const plain = answer(shards, candidates, limit, orders, null, stringsOnly, valueFilter);
      const fast = answer(shards, candidates, limit, orders, cut, stringsOnly, valueFilter);
      t.is(fast, plain, `seed ${seed} round ${round} limit ${limit} whole ${whole} ${JSON.stringify(orders)}`);
      // Writes between searches: the alpha order made for the last search must not outlive them.
      for (let k = 0; k < 6; k++) {
        const shard = random.int(0, shards.stores.length - 1);
        const docs = shards.docsOf[shard]!;
        if (docs.length > 0 && random.chance(0.5)) {
          const id = docs.splice(random.int(0, docs.length - 1), 1)[0]!;
          shards.stores[shard]!.delete(id);
        } else {
          const id = 1000 * (round + 1) + seed * 10 + k;
          shards.stores[shard]!.upsert(id, { f: value(random), g: random.int(0, 40), h: word(random) });
          docs.push(id);
        }
      }
    }
  }
});

test('a facet in count order is counted whole under a cut', (t) => {
  const random = new SeededRandom(7);
  const shards = layout(random);
  const candidates = shards.docsOf.map((docs) => new RoaringBitmap32(docs));
  const countOrder: FacetCut = { maxValues: 2, orderOf: () => 'count', whole: false };
  const partials = shards.stores.map((store, shard) => facetPartials(store, candidates[shard]!, ['f'], SearchBudget.unbounded(), false, undefined, countOrder));
  const plain = shards.stores.map((store, shard) => facetPartials(store, candidates[shard]!, ['f'], SearchBudget.unbounded()));
  t.deepEqual(partials, plain);
  t.true(Object.keys(mergeFacetExtras(plain)!.facetDistribution!['f']!).length > 2);
});
