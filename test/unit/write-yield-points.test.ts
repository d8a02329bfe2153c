// A write batch yields to waiting searches every few milliseconds (ShardEngine.writeBatch's yield
// point; worker.ts answers the waiting query batches there): a search run at a yield point answers
// exactly as an index holding the documents written so far (whole groups of the batch, each document
// old or new, never half), and the batch ends as if written at once.
import test from 'ava';
import { ShardEngine } from '../../src/shard/shard-engine.js';
import type { JsonDocument } from '../../src/shard/shard-engine.js';
import { randomFrom } from './seeded-lcg.js';
import { makeDocument, makeQuery } from './shard-twins.js';

const upsert = (docId: number, document: Record<string, unknown>) => ({ kind: 'upsert' as const, docId, document: JSON.stringify(document) });

function answers(engine: ShardEngine, queries: readonly string[]): unknown[] {
  return queries.map((q) => {
    const result = engine.search({ indexUid: 'w', shards: [0], q, hitsWanted: 30, matchingStrategy: 'last' });
    return { hits: result.hits.map((hit) => [hit.docId, [...hit.score]]), candidates: result.candidates };
  });
}

function freshEngine(documents: ReadonlyMap<number, JsonDocument>): ShardEngine {
  const engine = new ShardEngine(0, 1);
  engine.writeBatch('w', 0, [...documents].sort((a, b) => a[0] - b[0]).map(([docId, document]) => upsert(docId, document)));
  return engine;
}

test('searches at a write batch\'s yield points answer as an index of the documents written so far', (t) => {
  const random = randomFrom(31);
  const engine = new ShardEngine(0, 1);
  const documents = new Map<number, JsonDocument>();
  const first = Array.from({ length: 400 }, (_, docId) => upsert(docId, makeDocument(random, docId)));
  for (const op of first) documents.set(op.docId, JSON.parse(op.document) as JsonDocument);
  engine.writeBatch('w', 0, first);
  // One batch between, so the checked batch's documents alone are its recent ones.
  engine.writeBatch('w', 0, [upsert(100_000, { id: 100_000, title: 'between' })]);
  documents.set(100_000, { id: 100_000, title: 'between' });
  const queries = Array.from({ length: 12 }, () => makeQuery(random));
  // Rewrites of the first documents and new ones, in a random order.
  const ids = [...Array.from({ length: 400 }, (_, docId) => docId), ...Array.from({ length: 2600 }, (_, k) => 400 + k)].sort(() => random() - 0.5);
  const ops = ids.map((docId) => upsert(docId, makeDocument(random, docId)));
  let yields = 0;
  engine.writeBatch('w', 0, ops, () => {
    yields++;
    let written = 0;
    while (written < ops.length && engine.recentDocument('w', ops[written]!.docId) !== undefined) written++;
    t.is(written % 32, 0, 'whole groups written');
    for (let k = written; k < ops.length; k++) t.is(engine.recentDocument('w', ops[k]!.docId), undefined);
    const sofar = new Map(documents);
    for (let k = 0; k < written; k++) sofar.set(ops[k]!.docId, JSON.parse(ops[k]!.document) as JsonDocument);
    t.deepEqual(answers(engine, queries), answers(freshEngine(sofar), queries), `after ${written} documents`);
  }, { sliceMs: 0, fairShare: false });
  t.true(yields >= 2, `${yields} yield points`);
  for (const op of ops) documents.set(op.docId, JSON.parse(op.document) as JsonDocument);
  t.deepEqual(answers(engine, queries), answers(freshEngine(documents), queries), 'the whole batch');
});
