import test from 'ava';
import { ShardIndex } from '../../src/shard/shard-index.js';
import { PerDocumentRule } from '../../src/ranking/rules/per-document-rule.js';
import { compileIndexConfig } from '../../src/shard/index-config.js';
import type { IndexSettings } from '../../src/settings/index-settings.js';
import type { MatchingStrategyName } from '../../src/protocol/messages.js';

type Doc = Record<string, unknown>;

function shardOf(docs: Doc[], settings: Partial<IndexSettings> = {}): ShardIndex {
  const shard = new ShardIndex(compileIndexConfig(settings));
  docs.forEach((doc, docId) => shard.upsert(docId, doc));
  return shard;
}

function order(docs: Doc[], q: string, settings: Partial<IndexSettings> = {}, matchingStrategy: MatchingStrategyName = 'last'): unknown[] {
  const shard = shardOf(docs, settings);
  return shard.search({ q, hitsWanted: 100, matchingStrategy }).hits.map((hit) => docs[hit.docId]!['id']);
}

test('words (last): all terms first, then terms dropped from the end', (t) => {
  const docs = [
    { id: 'c', text: 'cat' },
    { id: 'cd', text: 'cat dog' },
    { id: 'cdb', text: 'cat dog bird' },
    { id: 'db', text: 'dog bird' },
    { id: 'b', text: 'bird' },
  ];
  t.deepEqual(order(docs, 'cat dog bird ', { rankingRules: ['words'] }), ['cdb', 'cd', 'c']);
});

test('words (all): only documents with every term', (t) => {
  const docs = [{ id: 'c', text: 'cat' }, { id: 'cd', text: 'cat dog' }, { id: 'dc', text: 'dog and cat' }];
  t.deepEqual(order(docs, 'cat dog', { rankingRules: ['words'] }, 'all'), ['cd', 'dc']);
  const shard = shardOf(docs);
  t.is(shard.search({ q: 'cat dog', hitsWanted: 0, matchingStrategy: 'all' }).candidates, 2);
  t.is(shard.search({ q: 'cat dog', hitsWanted: 0, matchingStrategy: 'last' }).candidates, 3);
});

test('words: phrases are never dropped', (t) => {
  const docs = [{ id: 'p', text: 'big dog' }, { id: 'pc', text: 'big dog cat' }, { id: 'c', text: 'cat' }];
  t.deepEqual(order(docs, '"big dog" cat', { rankingRules: ['words'] }), ['pc', 'p']);
});

test('typo: fewer typos first, prefix matches cost nothing', (t) => {
  const docs = [
    { id: 'two', text: 'beutifol' },
    { id: 'one', text: 'beautifol' },
    { id: 'zero', text: 'beautiful' },
    { id: 'prefix', text: 'beautifully' },
  ];
  t.deepEqual(order(docs, 'beautiful', { rankingRules: ['words', 'typo'] }), ['zero', 'prefix', 'one', 'two']);
});

test('proximity: closer query terms first, same attribute required, reverse order costs one more', (t) => {
  const docs = [
    { id: 'far', text: 'new is a word and this one is york' },
    { id: 'split', a: 'new', b: 'york' },
    { id: 'near', text: 'new york' },
    { id: 'reverse', text: 'york new' },
    { id: 'gap', text: 'new big york' },
  ];
  t.deepEqual(order(docs, 'new york', { rankingRules: ['words', 'proximity'] }), ['near', 'reverse', 'gap', 'far', 'split']);
});

test('attributeRank: searchableAttributes order decides; with ["*"] the field order of the document', (t) => {
  const docs = [
    { id: 'body', title: 'x', body: 'dune' },
    { id: 'title', title: 'dune', body: 'x' },
  ];
  t.deepEqual(order(docs, 'dune', { rankingRules: ['words', 'attributeRank'] }), ['title', 'body']);
  t.deepEqual(order(docs, 'dune', { rankingRules: ['words', 'attributeRank'], searchableAttributes: ['body', 'title'] }), ['body', 'title']);
});

test('wordPosition: words nearer the start of their attribute first', (t) => {
  const docs = [
    { id: 'late', text: 'one two three four five six seven eight nine ten dune' },
    { id: 'early', text: 'dune one' },
    { id: 'middle', text: 'one two dune' },
  ];
  t.deepEqual(order(docs, 'dune', { rankingRules: ['words', 'wordPosition'] }), ['early', 'middle', 'late']);
});

test('attribute (legacy): attribute rank then position', (t) => {
  const docs = [
    { id: 'body-early', title: 'x', body: 'dune' },
    { id: 'title-late', title: 'a b c d e f dune', body: 'x' },
    { id: 'title-early', title: 'dune', body: 'x' },
  ];
  t.deepEqual(order(docs, 'dune', { rankingRules: ['words', 'attribute'] }), ['title-early', 'title-late', 'body-early']);
});

test('exactness: whole attribute equal to the query, then starting with it, then exact words, then typos/prefixes', (t) => {
  const docs = [
    { id: 'typo', text: 'the sun also rizes' },
    { id: 'contains', text: 'when the sun also rises' },
    { id: 'starts', text: 'the sun also rises again' },
    { id: 'equal', text: 'The Sun Also Rises' },
  ];
  t.deepEqual(order(docs, 'the sun also rises', { rankingRules: ['words', 'exactness'] }), ['equal', 'starts', 'contains', 'typo']);
  const prefix = [{ id: 'prefix', text: 'dunes' }, { id: 'exact', text: 'dune' }];
  t.deepEqual(order(prefix, 'dune', { rankingRules: ['words', 'exactness'] }), ['exact', 'prefix']);
});

test('default rules: a realistic ordering and scores with one entry per rule', (t) => {
  const docs = [
    { id: 1, title: 'Batman Returns', overview: 'the dark knight returns to Gotham' },
    { id: 2, title: 'The Dark Knight', overview: 'batman fights the joker' },
    { id: 3, title: 'Knight and Day', overview: 'a dark comedy' },
  ];
  const shard = shardOf(docs);
  const result = shard.search({ q: 'dark knight', hitsWanted: 10, matchingStrategy: 'last' });
  t.deepEqual(result.hits.map((hit) => docs[hit.docId]!.id), [2, 1, 3]);
  for (const hit of result.hits) t.is(hit.score.length, 6); // sort is a no-op without `sort` in the query
});

test('placeholder search: every document by ascending id, empty scores', (t) => {
  const shard = shardOf([{ id: 1 }, { id: 2 }, { id: 3 }]);
  const result = shard.search({ q: null, hitsWanted: 2, matchingStrategy: 'last' });
  t.is(result.candidates, 3);
  t.deepEqual(result.hits, [{ docId: 0, score: [] }, { docId: 1, score: [] }]);
  t.deepEqual(shard.search({ q: '', hitsWanted: 5, matchingStrategy: 'last' }).hits.length, 3);
});

test('early termination: hitsWanted caps hits, candidates still counts all matches', (t) => {
  const docs = Array.from({ length: 50 }, (_, i) => ({ id: i, text: `common word${i}` }));
  const result = shardOf(docs).search({ q: 'common', hitsWanted: 3, matchingStrategy: 'last' });
  t.is(result.hits.length, 3);
  t.is(result.candidates, 50);
  t.deepEqual(result.hits.map((hit) => hit.docId), [0, 1, 2]);
});

test('a past deadline still answers, with the unrefined rest in one bucket', (t) => {
  const docs = [{ id: 1, text: 'a b' }, { id: 2, text: 'b a' }];
  const shard = shardOf(docs);
  const result = shard.search({ q: 'a b', hitsWanted: 10, matchingStrategy: 'last', deadline: 0 });
  t.is(result.hits.length, 2);
});

test('scoring rules applied in one pass order documents exactly as bucket by bucket', (t) => {
  const docs = Array.from({ length: 300 }, (_, i) => ({
    id: i,
    a: ['red fox', 'fox red', 'the red big fox', 'fox', 'red'][i % 5],
    b: ['quick red fox jumps', 'lazy dog', 'red', 'fox and red'][i % 4],
  }));
  const shard = shardOf(docs);
  const chained = shard.search({ q: 'red fox', hitsWanted: 300, matchingStrategy: 'last' });
  // Hide scoreDocument so the bucket sort falls back to start/nextBucket for every rule.
  const original = Object.getOwnPropertyDescriptor(PerDocumentRule.prototype, 'scoreDocument')!;
  Reflect.deleteProperty(PerDocumentRule.prototype, 'scoreDocument');
  try {
    const bucketed = shard.search({ q: 'red fox', hitsWanted: 300, matchingStrategy: 'last' });
    t.deepEqual(bucketed.hits, chained.hits);
  } finally {
    Object.defineProperty(PerDocumentRule.prototype, 'scoreDocument', original);
  }
  const top = shard.search({ q: 'red fox', hitsWanted: 7, matchingStrategy: 'last' });
  t.deepEqual(top.hits, chained.hits.slice(0, 7));
});
