// The shard side of filters, facets and sort on one ShardIndex: evaluation after upserts and deletes,
// facet partials, sort keys and orders, facet-query matching, and the front's facet merge.
import test from 'ava';
import { documentMatches } from '../../src/filter/document-match.js';
import { parseFilterParameter } from '../../src/filter/filter-input.js';
import { facetQueryMatcher } from '../../src/filter/facet-query.js';
import { facetSearchForm, normalizeFacetValue } from '../../src/filter/facet-value.js';
import { mergeFacetExtras } from '../../src/front/search/facet-merge.js';
import { compareSortKeys, missingSortKey, numberSortKey, stringSortKey } from '../../src/ranking/rules/sort-key.js';
import { facetPartials } from '../../src/shard/facets/facet-distribution.js';
import { evaluateFilter } from '../../src/shard/facets/filter-evaluator.js';
import { compileIndexConfig } from '../../src/shard/index-config.js';
import { ShardIndex } from '../../src/shard/shard-index.js';
import { fieldSortKey, sortOrderFor } from '../../src/shard/facets/sort-order.js';
import { SearchBudget } from '../../src/shard/search/search-budget.js';

function shardWith(documents: Record<string, unknown>[]): ShardIndex {
  const shard = new ShardIndex(compileIndexConfig({ filterableAttributes: ['color', 'size', 'meta', '_geo'], sortableAttributes: ['size'] }));
  documents.forEach((document, docId) => shard.upsert(docId, document));
  return shard;
}

const DOCUMENTS = [
  { color: 'Red', size: 3 },
  { color: ['red', 'Blue'], size: [1, 10] },
  { color: 'Bleu', size: '7' },
  { color: null, meta: { a: 1 } },
  { size: 5, meta: {} },
];

const run = (shard: ShardIndex, filter: string) => evaluateFilter(parseFilterParameter(filter)!, shard.facets, shard.documents).toArray();

test('equality, negation, ranges and presence on the facet store', (t) => {
  const shard = shardWith(DOCUMENTS);
  t.deepEqual(run(shard, 'color = RED'), [0, 1]);
  t.deepEqual(run(shard, 'color != red'), [2, 3, 4]);
  t.deepEqual(run(shard, 'size = 7'), [2]);
  t.deepEqual(run(shard, 'size >= 3'), [0, 1, 2, 4]);
  t.deepEqual(run(shard, 'size 2 TO 4'), [0]);
  t.deepEqual(run(shard, 'color EXISTS'), [0, 1, 2, 3]);
  t.deepEqual(run(shard, 'color IS NULL'), [3]);
  t.deepEqual(run(shard, 'meta IS EMPTY'), [4]);
  t.deepEqual(run(shard, 'meta.a = 1'), [3]);
  t.deepEqual(run(shard, 'color STARTS WITH bl'), [1, 2]);
  t.deepEqual(run(shard, 'color CONTAINS e'), [0, 1, 2]);
  t.deepEqual(run(shard, 'nothing = 1'), []);
  t.deepEqual(run(shard, 'nothing != 1'), [0, 1, 2, 3, 4]);
});

test('deletes and replacements leave no trace in the facet store', (t) => {
  const shard = shardWith(DOCUMENTS);
  shard.delete(1);
  shard.upsert(0, { color: 'green', size: 100 });
  t.deepEqual(run(shard, 'color = red'), []);
  t.deepEqual(run(shard, 'size > 80'), [0]); // the string "7" is not > "80" either
  t.deepEqual(run(shard, 'size = 10'), []);
  t.deepEqual(facetPartials(shard.facets, shard.documents, ['color']).facetDistribution, { color: { green: 1, Bleu: 1 } });
});

test('facet partials count each document once per value, with the smallest spelling and numeric stats', (t) => {
  const shard = shardWith(DOCUMENTS);
  const partials = facetPartials(shard.facets, shard.documents, ['color', 'size']);
  t.deepEqual(partials.facetDistribution, { color: { Red: 2, Blue: 1, Bleu: 1 }, size: { 7: 1, 1: 1, 3: 1, 5: 1, 10: 1 } });
  t.deepEqual(partials.facetStats, { size: { min: 1, max: 10 } });
});

test('sort keys: numbers before strings before missing, both directions, strings in order', (t) => {
  const ordered = (keys: number[][]) => keys.every((key, k) => k === 0 || compareSortKeys(keys[k - 1]!, key) < 0);
  t.true(ordered([numberSortKey(-5, 'asc'), numberSortKey(2, 'asc'), stringSortKey('a', 'asc'), stringSortKey('ab', 'asc'), stringSortKey('b', 'asc'), missingSortKey()]));
  t.true(ordered([numberSortKey(2, 'desc'), numberSortKey(-5, 'desc'), stringSortKey('b', 'desc'), stringSortKey('ab', 'desc'), stringSortKey('a', 'desc'), missingSortKey()]));
  t.true(ordered([stringSortKey('abcdefghijklmnopqrstuvwx', 'asc'), stringSortKey('abcdefghijklmnopqrstuvwy', 'asc')]));
});

test('the walked order and the keyed order agree', (t) => {
  const shard = shardWith(DOCUMENTS);
  for (const direction of ['asc', 'desc'] as const) {
    const order = sortOrderFor(shard.facets, { field: 'size', point: null, direction });
    const groups = [...{ [Symbol.iterator]: () => order.groups(shard.documents) }].map((group) => group.docIds.toArray());
    t.deepEqual(groups, direction === 'asc' ? [[1], [0], [4], [2], [3]] : [[1], [4], [0], [2], [3]]);
    const small = [...{ [Symbol.iterator]: () => order.groups(new (shard.documents.constructor as any)([0, 2])) }].map((group) => group.docIds.toArray());
    t.deepEqual(small, [[0], [2]]);
  }
});

test('facet queries match normalized prefixes with typos', (t) => {
  t.true(facetQueryMatcher('sci')('Science Fiction'));
  t.true(facetQueryMatcher('COMÉ')('comedie'));
  t.true(facetQueryMatcher('horor')('Horror'));
  t.false(facetQueryMatcher('hor')('Thriller'));
  t.true(facetQueryMatcher(null)('anything'));
  t.is(normalizeFacetValue('  Ｃafé '), 'cafe\u0301');
  t.is(facetSearchForm(normalizeFacetValue('  Ｃafé ')), 'cafe');
});

test('the front merges one value spelled differently by different shards into one bucket', (t) => {
  const merged = mergeFacetExtras([
    { facetDistribution: { genre: { action: 2, Drama: 1 } }, facetStats: { year: { min: 3, max: 9 } } },
    { facetDistribution: { genre: { Action: 1 } }, facetStats: { year: { min: 1, max: 4 } } },
  ]);
  t.deepEqual(merged, { facetDistribution: { genre: { Action: 3, Drama: 1 } }, facetStats: { year: { min: 1, max: 9 } } });
});

test('the per-document matcher (delete by filter) agrees with the bitmap evaluator', (t) => {
  let seed = 3;
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const VALUES: unknown[] = ['Red', 'red ', 'Blue', 'bleu', 3, 7, '7', 10, null, '', [], {}, ['red', 3], true, [1, 'blue']];
  const documents = Array.from({ length: 200 }, () => {
    const document: Record<string, unknown> = {};
    if (random() < 0.8) document.color = pick(VALUES);
    if (random() < 0.8) document.size = pick(VALUES);
    if (random() < 0.5) document.meta = { a: pick(VALUES) };
    if (random() < 0.5) document._geo = { lat: 40 + random() * 10, lng: random() * 10 };
    return document;
  });
  const shard = shardWith(documents);
  const FILTERS = ['color = red', 'color != red', 'size > 5', 'size <= 7', 'size 3 TO 10', 'color IN [blue, 3, true]', 'size EXISTS',
    'color IS NULL', 'color IS EMPTY', 'meta.a = red', 'NOT size = 7 AND color EXISTS', 'color = bleu OR size < 4', 'color > b',
    'color STARTS WITH r', 'size CONTAINS 1', '_geoRadius(45, 5, 200000)', '_geoBoundingBox([47, 6], [42, 1])', 'meta IS EMPTY'];
  for (const filter of FILTERS) {
    const node = parseFilterParameter(filter)!;
    const expected = evaluateFilter(node, shard.facets, shard.documents).toArray();
    const actual = documents.map((document, docId) => (documentMatches(node, document) ? docId : -1)).filter((docId) => docId >= 0);
    t.deepEqual(actual, expected, filter);
  }
});

test('geo sort yields every document once, nearest first, across its chunks', (t) => {
  let seed = 11;
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const documents = Array.from({ length: 1500 }, (_, k) => (k % 7 === 0 ? {} : { _geo: { lat: 40 + Math.floor(random() * 50) / 10, lng: Math.floor(random() * 50) / 10 } }));
  const shard = shardWith(documents);
  for (const direction of ['asc', 'desc'] as const) {
    const order = sortOrderFor(shard.facets, { field: null, point: { lat: 42, lng: 2 }, direction });
    const groups = [...{ [Symbol.iterator]: () => order.groups(shard.documents) }];
    const seen = groups.flatMap((group) => group.docIds.toArray());
    t.is(seen.length, documents.length);
    t.is(new Set(seen).size, documents.length);
    for (let k = 1; k < groups.length; k++) t.true(compareSortKeys(groups[k - 1]!.key, groups[k]!.key) < 0);
    t.deepEqual(groups[groups.length - 1]!.key, missingSortKey());
  }
});

test('field sort: walked (big universe) and keyed (small universe) orders both follow the per-document keys, through writes', (t) => {
  // Strings that are one key on milli's 468 bytes (one group), many distinct names (runs of one document), arrays, spellings.
  const LONG = ['x'.repeat(470) + 'a', 'x'.repeat(470) + 'b', 'X'.repeat(470) + 'c', '\u00e9'.repeat(240) + 'z', '\u00e9'.repeat(240) + 'y'];
  const VALUES: unknown[] = [3, 1.5, -2, 'b', 'A', 'ab', [4, 'z'], ['c', 'a'], [7, -1], null, true, 3, ['b', 'b'], 'Caf\u00e9', 'cafe'];
  for (let run = 1; run <= 30; run++) {
    let seed = run * 7 + 5;
    const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
    const valueOf = () => {
      const kind = random();
      if (kind < 0.5) return pick(VALUES);
      if (kind < 0.6) return pick(LONG);
      return `name ${Math.floor(random() * 400)}`;
    };
    const documentOf = () => (random() < 0.9 ? { size: valueOf() } : {});
    const count = 40 + Math.floor(random() * 200);
    const documents = Array.from({ length: count }, documentOf);
    const shard = shardWith(documents);
    const live = new Set(documents.keys());
    const Bitmap = shard.documents.constructor as new (ids: number[]) => typeof shard.documents;
    for (let round = 0; round < 3; round++) {
      for (const direction of ['asc', 'desc'] as const) {
        const order = sortOrderFor(shard.facets, { field: 'size', point: null, direction });
        for (const share of [0.01, 0.05, 0.3, 1]) {
          const subset = [...live].filter(() => random() < share).sort((a, b) => a - b);
          const groups = [...{ [Symbol.iterator]: () => order.groups(new Bitmap(subset)) }];
          const expected = subset.map((docId) => ({ docId, key: fieldSortKey(shard.facets.field('size'), docId, direction) }))
            .sort((a, b) => compareSortKeys(a.key, b.key) || a.docId - b.docId);
          const where = `run ${run} round ${round} ${direction} ${share}`;
          t.deepEqual(groups.flatMap((group) => group.docIds.toArray()), expected.map((item) => item.docId), where);
          for (const group of groups) for (const docId of group.docIds.toArray()) t.deepEqual(group.key, fieldSortKey(shard.facets.field('size'), docId, direction), where);
        }
      }
      // Writes between searches: the field's cached runs must follow them.
      for (let k = 0; k < 20; k++) {
        const docId = Math.floor(random() * (count + 40));
        if (live.has(docId) && random() < 0.5) {
          shard.delete(docId);
          live.delete(docId);
        } else {
          if (live.has(docId)) shard.delete(docId);
          shard.upsert(docId, documentOf());
          live.add(docId);
        }
      }
    }
  }
});

/** A budget whose deadline passes after `checks` yield points (SearchBudget reads the clock). */
class CountedBudget extends SearchBudget {
  constructor(private checks: number) {
    super(Infinity);
  }

  override passed(): boolean {
    if (this.checks-- > 0) return false;
    this.cutShort = true;
    return true;
  }
}

test('ranges over thousands of values (whole blocks, prefix bitmaps or unions) agree with the per-document matcher; past the deadline the filter keeps only sure matches', (t) => {
  let seed = 17;
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const word = () => Array.from({ length: 1 + Math.floor(random() * 4) }, () => String.fromCharCode(97 + Math.floor(random() * 26))).join('');
  // `one`: one number each (prefix bitmaps); `name`: one string each; `many`: several numbers and strings (unions of blocks).
  const documents = Array.from({ length: 3000 }, (_, k) => {
    const document: Record<string, unknown> = { one: Math.floor(random() * 5000), name: word() };
    if (k % 5 !== 0) document.many = [Math.floor(random() * 1000), Math.floor(random() * 1000), word()];
    return document;
  });
  const shard = new ShardIndex(compileIndexConfig({ filterableAttributes: ['one', 'name', 'many'] }));
  documents.forEach((document, docId) => shard.upsert(docId, document));
  const conditions: string[] = [];
  for (let k = 0; k < 40; k++) {
    const low = Math.floor(random() * 5000);
    conditions.push(`one ${low} TO ${low + Math.floor(random() * 4000)}`, `one > ${Math.floor(random() * 5000)}`, `many <= ${Math.floor(random() * 1000)}`,
      `name >= ${word()}`, `name < ${word()}`, `many > ${word()}`, `NOT one < ${Math.floor(random() * 5000)}`);
  }
  const matching = (node: ReturnType<typeof parseFilterParameter>) => documents.map((document, docId) => (documentMatches(node!, document) ? docId : -1)).filter((docId) => docId >= 0);
  for (const condition of conditions) {
    const node = parseFilterParameter(condition)!;
    t.deepEqual(evaluateFilter(node, shard.facets, shard.documents).toArray(), matching(node), condition);
  }
  const combined = [
    conditions.slice(0, 30).join(' OR '),
    conditions.slice(30, 45).join(' AND '),
    `(${conditions.slice(50, 60).join(' OR ')}) AND NOT (${conditions.slice(60, 70).join(' AND ')})`,
    `NOT (${conditions.slice(70, 90).join(' OR ')})`,
  ];
  for (const filter of combined) {
    const node = parseFilterParameter(filter)!;
    const exact = matching(node);
    t.deepEqual(evaluateFilter(node, shard.facets, shard.documents, SearchBudget.unbounded()).toArray(), exact, filter);
    for (const checks of [0, 1, 3, 7, 12, 25]) {
      const budget = new CountedBudget(checks);
      const sure = evaluateFilter(node, shard.facets, shard.documents, budget).toArray();
      const exactSet = new Set(exact);
      t.true(sure.every((docId) => exactSet.has(docId)), `${checks} checks: only documents the filter matches (${filter.slice(0, 60)})`);
      if (!budget.cutShort) t.deepEqual(sure, exact);
    }
  }
});
