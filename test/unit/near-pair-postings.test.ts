// The near-pair tables (and the document reads behind them) must find exactly the documents whose
// proximity pair cost is at most 1 or 2, as the per-document rule computes it: random documents over
// a small vocabulary (frequent words get tables, rare ones are read), written before and after a build.
import test, { type ExecutionContext } from 'ava';
import roaring from 'roaring';
import { ShardIndex } from '../../src/shard/shard-index.js';
import { compileIndexConfig } from '../../src/shard/index-config.js';
import { tokenCountAt, tokensStartAt } from '../../src/shard/documents/forward-index.js';
import { NearPairPostings } from '../../src/shard/pairs/near-pair-postings.js';
import type { PairTable } from '../../src/shard/pairs/pair-table.js';
import { PREFIX_TABLE_POLICY, SHORT_PREFIX_LENGTH, SPLIT_LENGTH } from '../../src/shard/pairs/prefix-pair-tables.js';
import { randomFrom } from './seeded-lcg.js';

const { RoaringBitmap32 } = roaring;

const COMMON = ['alpha', 'beta', 'gamma', 'delta', 'kappa'];

function makeDocument(random: () => number, id: number): Record<string, unknown> {
  const word = () => (random() < 0.1 ? `rare${Math.floor(random() * 40)}` : COMMON[Math.floor(random() * COMMON.length)]!);
  const text = () => Array.from({ length: 1 + Math.floor(random() * 4) }, word).join(random() < 0.2 ? '. ' : ' ');
  return { id, title: text(), body: text(), tags: [text(), text()] };
}

/** Proximity's pair cost (src/ranking/rules/proximity.ts) for single words, read from the forward index. */
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

/** pairDocsWithin at costs 1 and 2 against the cost read document by document; the documents compared. */
function checkAgainstReference(t: ExecutionContext, pairs: NearPairPostings, shard: ShardIndex, leftIds: number[], rightIds: number[], prefix: string): number {
  let compared = 0;
  for (const cost of [1, 2] as const) {
    const found = pairs.pairDocsWithin(cost, sideOf(shard.vocabulary.size, leftIds), sideOf(shard.vocabulary.size, rightIds, prefix), shard.documents);
    const expected = [...shard.documents].filter((docId) => referenceCost(shard, docId, new Set(leftIds), new Set(rightIds)) <= cost);
    t.deepEqual(found.toArray(), expected, `cost ${cost} prefix ${prefix}`);
    compared += expected.length;
  }
  return compared;
}

/** A pair side of these word ids (a prefix side when `prefix` is given). */
function sideOf(vocabularySize: number, ids: number[], prefix?: string) {
  const set = new Uint8Array(vocabularySize);
  for (const id of ids) set[id] = 1;
  return { wordIds: ids, set, ...(prefix === undefined ? {} : { prefix }) };
}

/** Runs `body` with the prefix tables' policy lowered to these small shards (a table for any prefix), then restores it. */
function withEveryPrefixTable(body: () => void): void {
  const policy = { ...PREFIX_TABLE_POLICY };
  Object.assign(PREFIX_TABLE_POLICY, { minDocuments: 1, buildAfterReadsShare: Infinity });
  try {
    body();
  } finally {
    Object.assign(PREFIX_TABLE_POLICY, policy);
  }
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

// A prefix side (the last word of an as-you-type query): its rare words' pairs come from prefix pair
// tables, built here at once (the policy lowered to this shard's size), before and after rewrites.
for (const rewritten of [false, true]) {
  test(`prefix pair tables find the per-document cost of a prefix's words (${rewritten ? "documents rewritten after the tables" : "tables fresh"})`, (t) => {
    withEveryPrefixTable(() => {
      const random = randomFrom(rewritten ? 7 : 8);
      const shard = new ShardIndex(compileIndexConfig({}));
      for (let docId = 0; docId < 400; docId++) shard.upsert(docId, makeDocument(random, docId));
      // Its own postings, so the rewrites below can be marked on it.
      const pairs = new NearPairPostings(shard.vocabulary, shard.forward, shard.documents);
      pairs.build();
      const vocabulary = shard.vocabulary;
      const words = Array.from({ length: vocabulary.size }, (_, id) => id).filter((id) => !vocabulary.docs(id).isEmpty);
      let compared = 0;
      for (let k = 0; k < 120; k++) {
        if (rewritten && k % 20 === 10) {
          // Written after the tables: read, never taken from them (new words included).
          for (let n = 0; n < 15; n++) {
            const docId = Math.floor(random() * 400);
            shard.upsert(docId, random() < 0.3 ? { id: docId, title: `rare7x alpha rare1new beta rare1 ${'gamma '.repeat(n % 3)}rare12` } : makeDocument(random, docId));
            pairs.markChanged(docId);
          }
        }
        const live = Array.from({ length: vocabulary.size }, (_, id) => id).filter((id) => !vocabulary.docs(id).isEmpty);
        const prefix = ['r', 'rare1', 'rare2', 'rare3', 'ka', 'be', 'zz'][Math.floor(random() * 7)]!;
        // Every word starting with the prefix (the contract of a prefix side), and a few others (typos, synonyms).
        const rightIds = [...new Set([...live.filter((id) => vocabulary.wordOf(id).startsWith(prefix)), ...words.filter(() => random() < 0.05)])];
        const leftIds = words.filter(() => random() < 0.15);
        compared += checkAgainstReference(t, pairs, shard, leftIds, rightIds, prefix);
      }
      t.true(compared > 1000);
      t.true(pairs.prefixTableBytes > 0);
    });
  });
}

// The short prefixes' tables tag their documents by the rare word's next characters: a prefix up to
// SPLIT_LENGTH characters longer filters its runs from them (no build of its own), and must find the
// per-document cost too.
for (const rewritten of [false, true]) {
  test(`2-letter prefixes read the splits of their short prefix's table (${rewritten ? "documents rewritten after the tables" : "tables fresh"})`, (t) => {
    const policy = { ...PREFIX_TABLE_POLICY };
    // No table of their own is ever built here: every table found is a short prefix's.
    Object.assign(PREFIX_TABLE_POLICY, { minDocuments: 1, buildAfterReadsShare: 0 });
    try {
      const random = randomFrom(rewritten ? 31 : 32);
      // Rare words r, ra0.., rb0.., rc0.., s0.., sb0.. (one letter words: the empty split).
      const rare = () => ['r', `ra${Math.floor(random() * 9)}`, `rb${Math.floor(random() * 9)}`, `rc${Math.floor(random() * 3)}`, `s${Math.floor(random() * 9)}`, `sb${Math.floor(random() * 9)}`][Math.floor(random() * 6)]!;
      const word = () => (random() < 0.25 ? rare() : COMMON[Math.floor(random() * COMMON.length)]!);
      const text = () => Array.from({ length: 1 + Math.floor(random() * 5) }, word).join(random() < 0.2 ? '. ' : ' ');
      const shard = new ShardIndex(compileIndexConfig({}));
      for (let docId = 0; docId < 500; docId++) shard.upsert(docId, { id: docId, title: text(), body: text() });
      const pairs = new NearPairPostings(shard.vocabulary, shard.forward, shard.documents);
      pairs.build();
      for (const prefix of ['r', 'ra', 'rb', 'rc', 'rd', 's', 'sb', 'r0']) t.true(pairs.hasPrefixTable(prefix), prefix);
      t.is(pairs.hasPrefixTable('ra1'), SHORT_PREFIX_LENGTH + SPLIT_LENGTH >= 3, 'three letters');
      t.false(pairs.hasPrefixTable('ra1x'), 'longer than the splits: no table of its own built here');
      const vocabulary = shard.vocabulary;
      let compared = 0;
      for (let k = 0; k < 120; k++) {
        if (rewritten && k % 20 === 10) {
          for (let n = 0; n < 15; n++) {
            const docId = Math.floor(random() * 500);
            shard.upsert(docId, random() < 0.3 ? { id: docId, title: `alpha ra1 beta rd7 ${'gamma '.repeat(n % 3)}rb2 r` } : { id: docId, title: text(), body: text() });
            pairs.markChanged(docId);
          }
        }
        const live = Array.from({ length: vocabulary.size }, (_, id) => id).filter((id) => !vocabulary.docs(id).isEmpty);
        const prefix = ['r', 'ra', 'rb', 'rc', 'rd', 's', 'sb', 'sa', 'ra1', 'sb2', 'rc7'][Math.floor(random() * 11)]!;
        const rightIds = live.filter((id) => vocabulary.wordOf(id).startsWith(prefix));
        const leftIds = live.filter((id) => COMMON.includes(vocabulary.wordOf(id)) && random() < 0.4);
        compared += checkAgainstReference(t, pairs, shard, leftIds, rightIds, prefix);
      }
      t.true(compared > 1000);
    } finally {
      Object.assign(PREFIX_TABLE_POLICY, policy);
    }
  });
}

test('prepareForSearch builds the pair tables ahead of the searches, which then answer the same', (t) => {
  const random = randomFrom(9);
  const documents = Array.from({ length: 300 }, (_, docId) => makeDocument(random, docId));
  const prepared = new ShardIndex(compileIndexConfig({}));
  const lazy = new ShardIndex(compileIndexConfig({}));
  documents.forEach((document, docId) => {
    prepared.upsert(docId, document);
    lazy.upsert(docId, document);
  });
  t.is(prepared.nearPairs.byteLength, 0);
  prepared.prepareForSearch();
  t.true(prepared.nearPairs.byteLength > 0);
  for (const q of ['alpha beta', 'gamma delta kappa', 'beta alp', 'rare1 alpha']) {
    const search = (shard: ShardIndex) => shard.search({ q, hitsWanted: 20, matchingStrategy: 'last' }).hits;
    t.deepEqual(search(prepared), search(lazy), q);
  }
});

/** The gap tables' and the short prefixes' tables' arrays (private: compared between two builds). */
function tableStates(pairs: NearPairPostings): unknown {
  const inside = pairs as unknown as { tables: PairTable[]; prefixTables: { adoptedHeld(): { prefixes: string[]; tables: PairTable[] } } };
  const adopted = inside.prefixTables.adoptedHeld();
  return { tables: inside.tables.map((table) => table.state), prefixes: adopted.prefixes, prefixTables: adopted.tables.map((table) => table.state) };
}

// The build's fill replays what its counting pass recorded (replayPairPass) instead of reading the
// documents again: the same tables as two visits, and with documents written between its steps
// (left out of the fill, as the second visit leaves them out), the same answers as the per-document cost.
test('randomized: the near-pair build replaying its counting pass makes the tables of two visits (replayPairPass)', (t) => {
  withEveryPrefixTable(() => {
    for (let seed = 41; seed <= 46; seed++) {
      const random = randomFrom(seed);
      const shard = new ShardIndex(compileIndexConfig({}));
      for (let docId = 0; docId < 1500; docId++) shard.upsert(docId, makeDocument(random, docId));
      const replayed = new NearPairPostings(shard.vocabulary, shard.forward, shard.documents);
      const visited = new NearPairPostings(shard.vocabulary, shard.forward, shard.documents);
      visited.replayPairPass = false;
      replayed.build();
      visited.build();
      t.deepEqual(tableStates(replayed), tableStates(visited), `seed ${seed}`);
      t.true(replayed.byteLength > 0);
    }
  });
});

for (const replay of [true, false]) {
  test(`documents written at every step of a near-pair build: the pairs found are the per-document cost's (${replay ? 'fill replayed' : 'two visits'})`, (t) => {
    withEveryPrefixTable(() => {
      const random = randomFrom(replay ? 51 : 52);
      const shard = new ShardIndex(compileIndexConfig({}));
      for (let docId = 0; docId < 5000; docId++) shard.upsert(docId, makeDocument(random, docId));
      const pairs = new NearPairPostings(shard.vocabulary, shard.forward, shard.documents);
      pairs.replayPairPass = replay;
      let steps = 0;
      for (const _ of pairs.buildSteps()) {
        steps++;
        // Rewritten or deleted meanwhile: read, never taken from the tables.
        for (let n = 0; n < 3; n++) {
          const docId = Math.floor(random() * 5000);
          if (random() < 0.2) shard.delete(docId);
          else shard.upsert(docId, makeDocument(random, docId));
          pairs.markChanged(docId);
        }
      }
      t.true(steps > 3, `${steps} steps`);
      const vocabulary = shard.vocabulary;
      const words = Array.from({ length: vocabulary.size }, (_, id) => id).filter((id) => !vocabulary.docs(id).isEmpty);
      let compared = 0;
      for (let k = 0; k < 30; k++) {
        const prefix = ['r', 'rare1', 'ka', 'be', 'a'][Math.floor(random() * 5)]!;
        const rightIds = random() < 0.5 ? words.filter((id) => vocabulary.wordOf(id).startsWith(prefix)) : words.filter(() => random() < 0.15);
        const leftIds = words.filter(() => random() < 0.15);
        compared += checkAgainstReference(t, pairs, shard, leftIds, rightIds, random() < 0.5 ? prefix : '');
      }
      t.true(compared > 1000);
    });
  });
}
