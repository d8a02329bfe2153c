import test from 'ava';
import { ShardEngine, type JsonDocument } from '../../src/shard/shard-engine.js';
import { ShardIndex } from '../../src/shard/shard-index.js';
import { compileIndexConfig } from '../../src/shard/index-config.js';
import { composeDocId, shardOf } from '../../src/documents/doc-ids.js';
import { SkeinError } from '../../src/errors/skein-error.js';

const VOCABULARY = ['alpha', 'alpine', 'alpaca', 'beta', 'better', 'bitter', 'gamma', 'gammon', 'delta', 'deltas', 'epsilon',
  'zeta', 'theta', 'iota', 'kappa', 'lambda', 'lambada', 'mu', 'nu', 'omicron', 'pi', 'rho', 'sigma', 'tau', 'upsilon', 'phi'];

/** Deterministic pseudo-random documents. */
function generate(count: number): JsonDocument[] {
  let seed = 42;
  const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const phrase = (length: number) => Array.from({ length }, () => VOCABULARY[Math.floor(next() * VOCABULARY.length)]).join(next() < 0.2 ? ', ' : ' ');
  return Array.from({ length: count }, (_, i) => ({ id: `doc-${i}`, title: phrase(1 + Math.floor(next() * 3)), body: phrase(3 + Math.floor(next() * 8)) }));
}

/** Documents with ids assigned the way the scheduler does: seq per shard, docId = seq * shardCount + shard. */
function withDocIds(documents: JsonDocument[], shardCount: number): [number, JsonDocument][] {
  const nextSeq = new Array<number>(shardCount).fill(0);
  const globalSeq = { value: 0 };
  return documents.map((document) => {
    const shard = shardOf(String(document['id']), shardCount);
    nextSeq[shard]!++;
    return [composeDocId(globalSeq.value++, shard, shardCount), document];
  });
}

function engineWith(documents: JsonDocument[], shardCount: number): ShardEngine {
  const engine = new ShardEngine(0, 1);
  engine.loadIndex('movies', shardCount, null, withDocIds(documents, shardCount));
  return engine;
}

test('1 shard and 4 shards give the same hits in the same order, and the same counts', (t) => {
  const documents = generate(3000);
  const one = engineWith(documents, 1);
  const four = engineWith(documents, 4);
  const idsOf = (engine: ShardEngine, shardCount: number, byDocId: Map<number, JsonDocument>, q: string | null, strategy: 'last' | 'all') => {
    const result = engine.search({ indexUid: 'movies', shards: [...Array(shardCount).keys()], q, hitsWanted: 60, matchingStrategy: strategy });
    return { candidates: result.candidates, ids: result.hits.map((hit) => byDocId.get(hit.docId)!['id']), scores: result.hits.map((hit) => hit.score) };
  };
  const oneIds = new Map(withDocIds(documents, 1));
  const fourIds = new Map(withDocIds(documents, 4));
  for (const q of ['alpha', 'alp', 'beta gamma', 'gama delta', 'lambda sigma tau', '"alpha beta"', 'bettr', 'omicron upsilon phi', 'zzz alpha', null]) {
    for (const strategy of ['last', 'all'] as const) {
      const a = idsOf(one, 1, oneIds, q, strategy);
      const b = idsOf(four, 4, fourIds, q, strategy);
      t.deepEqual(b.ids, a.ids, `q=${q} ${strategy}`);
      t.deepEqual(b.scores, a.scores, `q=${q} ${strategy}`);
      t.is(b.candidates, a.candidates, `q=${q} ${strategy}`);
    }
  }
});

test('delete removes a document from every posting list; replace forgets the old words', (t) => {
  const shard = new ShardIndex(compileIndexConfig(null));
  shard.upsert(0, { id: 1, text: 'hello world' });
  shard.upsert(1, { id: 2, text: 'hello there' });
  t.is(shard.search({ q: 'hello', hitsWanted: 10, matchingStrategy: 'last' }).candidates, 2);
  t.true(shard.delete(0));
  t.false(shard.delete(0));
  t.is(shard.search({ q: 'hello', hitsWanted: 10, matchingStrategy: 'last' }).candidates, 1);
  t.is(shard.search({ q: 'world', hitsWanted: 10, matchingStrategy: 'last' }).candidates, 0);
  t.true(shard.vocabulary.docsOfWord('world').isEmpty);
  shard.upsert(1, { id: 2, text: 'goodbye' });
  t.true(shard.vocabulary.docsOfWord('hello').isEmpty);
  t.deepEqual(shard.search({ q: 'goodbye', hitsWanted: 10, matchingStrategy: 'last' }).hits.map((hit) => hit.docId), [1]);
  t.is(shard.search({ q: null, hitsWanted: 10, matchingStrategy: 'last' }).candidates, 1);
});

test('derivation cache is invalidated by writes', (t) => {
  const shard = new ShardIndex(compileIndexConfig(null));
  shard.upsert(0, { text: 'hello' });
  t.is(shard.search({ q: 'hallo', hitsWanted: 10, matchingStrategy: 'last' }).candidates, 1);
  shard.upsert(1, { text: 'hullo' });
  t.is(shard.search({ q: 'hallo', hitsWanted: 10, matchingStrategy: 'last' }).candidates, 2);
});

test('engine: write batches, reload from committed documents, load with settings, drop', (t) => {
  const engine = new ShardEngine(0, 1);
  engine.writeBatch('books', 0, [
    { kind: 'upsert', docId: 0, document: JSON.stringify({ id: 'a', title: 'Dune', author: 'Herbert' }) },
    { kind: 'upsert', docId: 1, document: JSON.stringify({ id: 'b', title: 'Emma', author: 'Austen' }) },
  ]);
  const search = (q: string) => engine.search({ indexUid: 'books', shards: [0], q, hitsWanted: 10, matchingStrategy: 'last' });
  t.is(search('dune').candidates, 1);
  engine.writeBatch('books', 0, [{ kind: 'delete', docId: 0 }]);
  t.is(search('dune').candidates, 0);
  // Rollback: the committed state still has doc 0 and not doc 1.
  const committed = new Map<number, JsonDocument>([[0, { id: 'a', title: 'Dune', author: 'Herbert' }]]);
  engine.reloadDocuments('books', 0, [0, 1], { get: (_uid, docId) => committed.get(docId) });
  t.is(search('dune').candidates, 1);
  t.is(search('emma').candidates, 0);
  engine.loadIndex('books', 1, { searchableAttributes: ['author'] }, committed);
  t.is(search('dune').candidates, 0);
  t.is(search('herbert').candidates, 1);
  engine.dropIndex('books');
  const error = t.throws(() => search('herbert'));
  t.true(error instanceof SkeinError);
  t.is((error as SkeinError).code, 'index_not_found');
});

test('engine: a worker only loads the shards it owns', (t) => {
  const documents = withDocIds(generate(100), 4);
  const worker1 = new ShardEngine(1, 2);
  worker1.loadIndex('movies', 4, null, documents);
  const result = worker1.search({ indexUid: 'movies', shards: [1, 3], q: null, hitsWanted: 1000, matchingStrategy: 'last' });
  t.true(result.hits.every((hit) => hit.docId % 2 === 1));
  t.is(result.candidates, documents.filter(([docId]) => docId % 4 === 1 || docId % 4 === 3).length);
});
