// The field starts (field-start-pairs.ts) held to reading every document's fields: a field with one of
// the first words at position 0 and one of the second words at position 1, and whether that field has
// those two words alone; fresh after a build, and through writes after it (changed documents read).
import test from 'ava';
import roaring from 'roaring';
import { ShardIndex } from '../../src/shard/shard-index.js';
import { compileIndexConfig } from '../../src/shard/index-config.js';
import { tokenCountAt, tokensStartAt } from '../../src/shard/documents/forward-index.js';
import { OWNED_BITMAPS } from '../../src/ranking/scratch-bitmaps.js';
import { randomFrom } from './seeded-lcg.js';

const { RoaringBitmap32 } = roaring;

const COMMON = ['alpha', 'beta', 'gamma', 'delta', 'kappa', 'the'];

function makeDocument(random: () => number, id: number): Record<string, unknown> {
  const word = () => (random() < 0.15 ? `rare${Math.floor(random() * 40)}` : COMMON[Math.floor(random() * COMMON.length)]!);
  // One to four words (two-word fields are common), sometimes a list (positions go on across values).
  const text = () => Array.from({ length: 1 + Math.floor(random() * 4) }, word).join(random() < 0.1 ? '. ' : ' ');
  const document: Record<string, unknown> = { id, title: text(), body: text() };
  if (random() < 0.3) document['tags'] = [text(), text()];
  return document;
}

/** Per field of the document, [tokens]: its (word, position) pairs, read straight from the forward index. */
function fieldsOf(shard: ShardIndex, docId: number): Map<number, [number, number][]> {
  const data = shard.forward.arena;
  const offset = shard.forward.offsetOf(docId);
  const fields = new Map<number, [number, number][]>();
  if (offset < 0) return fields;
  const start = tokensStartAt(data, offset);
  for (let k = 0; k < tokenCountAt(data, offset); k++) {
    const key = data[start + k * 2 + 1]!;
    const field = key >>> 16;
    if (!fields.has(field)) fields.set(field, []);
    fields.get(field)!.push([data[start + k * 2]!, key & 0xffff]);
  }
  return fields;
}

function bruteForce(shard: ShardIndex, firsts: number[], seconds: number[], universe: roaring.RoaringBitmap32): { starts: number[]; alone: number[] } {
  const starts: number[] = [];
  const alone: number[] = [];
  for (const docId of universe) {
    let starting = false;
    let whole = false;
    for (const tokens of fieldsOf(shard, docId).values()) {
      const hasFirst = tokens.some(([word, position]) => position === 0 && firsts.includes(word));
      const hasSecond = tokens.some(([word, position]) => position === 1 && seconds.includes(word));
      if (!hasFirst || !hasSecond) continue;
      starting = true;
      if (tokens.length === 2) whole = true;
    }
    if (starting) starts.push(docId);
    if (whole) alone.push(docId);
  }
  return { starts, alone };
}

for (const written of [false, true]) {
  test(`field starts equal reading every document's fields (${written ? 'documents written after the build' : 'fresh build'})`, (t) => {
    const random = randomFrom(written ? 91 : 92);
    const shard = new ShardIndex(compileIndexConfig({}));
    for (let docId = 0; docId < 500; docId++) shard.upsert(docId, makeDocument(random, docId));
    shard.fieldStartPairs.build();
    if (written) {
      for (let k = 0; k < 80; k++) {
        const docId = Math.floor(random() * 560);
        if (random() < 0.3) shard.delete(docId);
        else shard.upsert(docId, makeDocument(random, docId));
      }
    }
    const vocabulary = shard.vocabulary;
    const words = Array.from({ length: vocabulary.size }, (_, id) => id).filter((id) => !vocabulary.docs(id).isEmpty);
    let starting = 0;
    let alone = 0;
    for (let k = 0; k < 150; k++) {
      const pick = () => words.filter(() => random() < 0.15).slice(0, 1 + Math.floor(random() * 2));
      const firsts = pick();
      const seconds = random() < 0.2 ? firsts : pick();
      const universe = random() < 0.3 ? shard.documents : new RoaringBitmap32(shard.documents.toArray().filter(() => random() < 0.6));
      const found = shard.fieldStartPairs.docsOf(firsts, seconds, universe, OWNED_BITMAPS);
      const expected = bruteForce(shard, firsts, seconds, universe);
      t.deepEqual(found.starts.toArray(), expected.starts, `query ${k}: starts`);
      t.deepEqual(found.alone.toArray(), expected.alone, `query ${k}: alone`);
      starting += expected.starts.length;
      alone += expected.alone.length;
    }
    t.true(starting > 200 && alone > 50, `${starting} starting, ${alone} alone`);
  });
}

// A two-word query's exactness is settled from the field starts: no document is read for it.
test('a two-word query ranks by field starts without reading the documents that start with it', (t) => {
  const shard = new ShardIndex(compileIndexConfig({ rankingRules: ['exactness'] }));
  for (let docId = 0; docId < 300; docId++) {
    const title = docId % 3 === 0 ? 'alpha beta' : docId % 3 === 1 ? 'alpha beta gamma' : 'gamma alpha beta';
    shard.upsert(docId, { id: docId, title, body: 'beta alpha delta' });
  }
  shard.trim();
  shard.fieldStartPairs.build();
  // Every document read goes through its arena offset.
  const forward = shard.forward;
  const offsetOf = forward.offsetOf.bind(forward);
  let reads = 0;
  forward.offsetOf = (docId: number) => {
    reads++;
    return offsetOf(docId);
  };
  const hits = shard.search({ q: 'alpha beta', hitsWanted: 300, matchingStrategy: 'all' }).hits;
  t.is(reads, 0);
  forward.offsetOf = offsetOf;
  const reference = shard.search({ q: 'alpha beta', hitsWanted: 300, matchingStrategy: 'all', bitmapBuckets: false }).hits;
  t.deepEqual(hits, reference);
  // Equal to the query, then starting with it, then the rest.
  t.deepEqual(hits.slice(0, 3).map((hit) => hit.docId), [0, 3, 6]);
  t.deepEqual(hits.slice(100, 103).map((hit) => hit.docId), [1, 4, 7]);
  t.deepEqual(hits.slice(200, 203).map((hit) => hit.docId), [2, 5, 8]);
});
