// The near-pair tables (and the document reads behind them) must find exactly the documents whose
// proximity pair cost is at most 1 or 2, as the per-document rule computes it: random documents over
// a small vocabulary (frequent words get tables, rare ones are read), written before and after a build.
import test from 'ava';
import roaring from 'roaring';
import { ShardIndex } from '../../src/shard/shard-index.js';
import { compileIndexConfig } from '../../src/shard/index-config.js';
import { tokenCountAt, tokensStartAt } from '../../src/shard/forward-index.js';

const { RoaringBitmap32 } = roaring;

function randomFrom(seed: number): () => number {
  let state = seed;
  return () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
}

const COMMON = ['alpha', 'beta', 'gamma', 'delta', 'kappa'];

function makeDocument(random: () => number, id: number): Record<string, unknown> {
  const word = () => (random() < 0.1 ? `rare${Math.floor(random() * 40)}` : COMMON[Math.floor(random() * COMMON.length)]!);
  const text = () => Array.from({ length: 1 + Math.floor(random() * 4) }, word).join(random() < 0.2 ? '. ' : ' ');
  return { id, title: text(), body: text(), tags: [text(), text()] };
}

/** Proximity's pair cost (src/ranking/proximity.ts) for single words, read from the forward index. */
function referenceCost(shard: ShardIndex, docId: number, left: Set<number>, right: Set<number>): number {
  const data = shard.forward.arena;
  const offset = shard.forward.offsetOf(docId);
  const start = tokensStartAt(data, offset);
  const tokens = Array.from({ length: tokenCountAt(data, offset) }, (_, k) => ({ word: data[start + 2 * k]!, key: data[start + 2 * k + 1]! }));
  let best = 8;
  for (const l of tokens.filter((token) => left.has(token.word))) {
    for (const r of tokens.filter((token) => right.has(token.word))) {
      if (l.key >>> 16 !== r.key >>> 16) continue;
      const leftPosition = l.key & 0xffff;
      const rightPosition = r.key & 0xffff;
      best = Math.min(best, rightPosition > leftPosition ? rightPosition - leftPosition : leftPosition - rightPosition + 1);
    }
  }
  return best;
}

for (const rewritten of [false, true]) {
  test(`pair docs within cost 1 and 2 match the per-document cost (${rewritten ? "tables built, then documents rewritten" : "tables fresh"})`, (t) => {
    const random = randomFrom(rewritten ? 5 : 6);
    const shard = new ShardIndex(compileIndexConfig({}));
    for (let docId = 0; docId < 400; docId++) shard.upsert(docId, makeDocument(random, docId));
    shard.nearPairs.build();
    if (rewritten) {
      // After the build, rewrite a few documents: they must be read, not taken from the stale tables.
      for (let k = 0; k < 60; k++) shard.upsert(Math.floor(random() * 400), makeDocument(random, k));
    }
    const vocabulary = shard.vocabulary;
    const words = Array.from({ length: vocabulary.size }, (_, id) => id).filter((id) => !vocabulary.docs(id).isEmpty);
    let compared = 0;
    for (let k = 0; k < 80; k++) {
      const pick = () => words.filter(() => random() < 0.15);
      const leftIds = pick();
      const rightIds = pick();
      const side = (ids: number[]) => {
        const set = new Uint8Array(vocabulary.size);
        for (const id of ids) set[id] = 1;
        return { wordIds: ids, set };
      };
      for (const cost of [1, 2] as const) {
        const found = shard.nearPairs.pairDocsWithin(cost, side(leftIds), side(rightIds), shard.documents);
        t.truthy(found);
        const expected = new RoaringBitmap32([...shard.documents].filter((docId) => referenceCost(shard, docId, new Set(leftIds), new Set(rightIds)) <= cost));
        t.deepEqual(found!.toArray(), expected.toArray(), `cost ${cost}`);
        compared += expected.size;
      }
    }
    t.true(compared > 1000);
  });
}
