// The short prefixes' unions kept across writes (src/shard/postings/prefix-postings.ts, ShardIndex.prefixUnions):
// on random lexicons with upserts, rewrites and deletes (before, during and after a build in slices,
// and on a shard restored from its snapshot), each 2- and 3-letter prefix's list is the plain definition,
// the union of the lists of the words starting with it (or its typo-disabled spelling); prefix terms
// derive and answer as with the structure off.
import test, { type ExecutionContext } from 'ava';
import roaring from 'roaring';
import { ShardIndex } from '../../src/shard/shard-index.js';
import { compileIndexConfig } from '../../src/shard/index-config.js';
import { exactAttributeKey } from '../../src/shard/words/derivations.js';
import { unionOfMany } from '../../src/shard/words/bitmap-union.js';
import { PREFIX_POSTING_LENGTHS } from '../../src/shard/postings/prefix-postings.js';
import { fieldRankAt, tokenCountAt, tokensStartAt } from '../../src/shard/documents/forward-index.js';
import { decodeShardSnapshot, encodeShardSnapshot, settingsFingerprint } from '../../src/shard/snapshot/shard-snapshot.js';
import { randomFrom } from './seeded-lcg.js';
import { randomLexicon } from './random-edits.js';

const { RoaringBitmap32 } = roaring;
const LETTERS = ['a', 'b', 'c', 'd', 'e'];
const SETTINGS = { searchableAttributes: ['title', 'body', 'code'], typoTolerance: { enabled: true, minWordSizeForTypos: { oneTypo: 2, twoTypos: 4 },
  disableOnWords: [], disableOnNumbers: false, disableOnAttributes: ['code'] } };

interface Material {
  random: () => number;
  words: string[];
  document: (id: number) => Record<string, unknown>;
}

function material(seed: number): Material {
  const random = randomFrom(seed);
  // Short words too (a word as long as a prefix is in it), and families of near words.
  const words = [...randomLexicon(random, LETTERS, 120), ...Array.from({ length: 30 }, () => LETTERS[Math.floor(random() * 5)]! + LETTERS[Math.floor(random() * 5)]!), 'a', 'e'];
  const text = (max: number) => Array.from({ length: 1 + Math.floor(random() * max) }, () => words[Math.floor(words.length * random() ** 1.5)]!).join(' ');
  return { random, words, document: (id) => ({ id, title: text(4), body: text(12), ...(random() < 0.4 ? { code: text(3) } : {}) }) };
}

function shardOf(on: boolean): ShardIndex {
  const shard = new ShardIndex(compileIndexConfig(SETTINGS));
  shard.prefixUnions = on;
  return shard;
}

/** Random writes to every shard alike: new documents, rewrites, deletes (of present and absent ids). */
function write(shards: readonly ShardIndex[], { random, document }: Material, count: number, idSpan: number): void {
  for (let k = 0; k < count; k++) {
    const docId = Math.floor(random() * idSpan);
    const deleting = random() < 0.25;
    const doc = document(docId);
    for (const shard of shards) {
      if (deleting) shard.delete(docId);
      else shard.upsert(docId, doc);
    }
  }
  for (const shard of shards) shard.flushWrites();
}

/**
 * Every made prefix's lists against the plain definitions, over the prefixes of every interned word and
 * some absent ones: the union of the lists of the words starting with it (or its marked spelling), and by
 * field rank / position the documents with a token of such a word there (read from the forward index).
 */
function holdsPlainDefinition(t: ExecutionContext, shard: ShardIndex, label: string): number {
  const vocabulary = shard.vocabulary;
  const unmarked = (wordId: number) => vocabulary.wordOf(wordId).replace(exactAttributeKey(''), '');
  const prefixes = new Set(['zz', 'zzz', 'ab', 'abc']);
  for (let id = 0; id < vocabulary.size; id++) {
    for (const length of PREFIX_POSTING_LENGTHS) if (unmarked(id).length >= length) prefixes.add(unmarked(id).slice(0, length));
  }
  const byKey = new Map<string, number[]>();
  const data = shard.forward.arena;
  for (const docId of shard.documents) {
    const offset = shard.forward.offsetOf(docId);
    const start = tokensStartAt(data, offset);
    for (let k = 0; k < tokenCountAt(data, offset); k++) {
      const word = unmarked(data[start + 2 * k]!);
      const fieldPosition = data[start + 2 * k + 1]!;
      for (const length of PREFIX_POSTING_LENGTHS) {
        if (word.length < length) continue;
        for (const name of [`r${fieldRankAt(data, offset, fieldPosition >>> 16)}`, `p${fieldPosition & 0xffff}`]) {
          const docs = byKey.get(`${word.slice(0, length)}/${name}`) ?? [];
          docs.push(docId);
          byKey.set(`${word.slice(0, length)}/${name}`, docs);
        }
      }
    }
  }
  const same = (kept: roaring.RoaringBitmap32 | undefined, plain: roaring.RoaringBitmap32, what: string) => {
    if (kept === undefined || !kept.isEqual(plain)) t.fail(`${label}: ${what} keeps ${kept?.size} documents, its words hold ${plain.size}`);
  };
  let nonEmpty = 0;
  for (const prefix of prefixes) {
    const lists = [];
    for (let id = 0; id < vocabulary.size; id++) {
      const word = vocabulary.wordOf(id);
      if (word.startsWith(prefix) || word.startsWith(exactAttributeKey(prefix))) lists.push(vocabulary.docs(id));
    }
    const plain = unionOfMany(lists, Infinity);
    const kept = shard.prefixDocs.listOf(prefix);
    if (kept === undefined) continue;
    if (!plain.isEmpty) nonEmpty++;
    same(kept, plain, `prefix ${JSON.stringify(prefix)}`);
    for (const [postings, name, limit] of [[shard.prefixRanks, 'r', 16], [shard.prefixPositions, 'p', 4]] as const) {
      const keyed = postings.keyedLists(prefix);
      if (keyed === undefined) continue;
      t.is(keyed.length, limit);
      for (let key = 0; key < limit; key++) same(keyed![key], new RoaringBitmap32(byKey.get(`${prefix}/${name}${key}`) ?? []), `prefix ${JSON.stringify(prefix)} ${name}${key}`);
    }
  }
  for (const postings of [shard.prefixDocs, shard.prefixRanks, shard.prefixPositions]) {
    t.true(postings.listOf('abcd') === undefined && postings.listOf('a') === undefined, 'other lengths are not kept');
  }
  return nonEmpty;
}

/** The prefix's lists made (or read) as searches make them: its derivations (zero-typo union), then its rank and position lists. */
function makePrefix(shard: ShardIndex, prefix: string): void {
  const derivations = shard.derive(prefix, true, 0, [], false);
  shard.prefixRanks.listsOfTerm(derivations, shard.rankPostings);
  shard.prefixPositions.listsOfTerm(derivations, shard.positionPostings);
}

/** Every 2- and 3-letter prefix of the shard's words (unmarked). */
function prefixesOf(shard: ShardIndex): string[] {
  const prefixes = new Set<string>();
  for (let id = 0; id < shard.vocabulary.size; id++) {
    const word = shard.vocabulary.wordOf(id).replace(exactAttributeKey(''), '');
    for (const length of PREFIX_POSTING_LENGTHS) if (word.length >= length) prefixes.add(word.slice(0, length));
  }
  return [...prefixes].sort();
}

/** Prefix terms derive (and a few queries answer) alike on both shards. */
function sameDerivations(t: ExecutionContext, subject: ShardIndex, reference: ShardIndex, { random, words }: Material): void {
  for (let k = 0; k < 30; k++) {
    const word = words[Math.floor(random() * words.length)]!;
    const prefix = word.slice(0, 2 + Math.floor(random() * 2));
    const [got, expected] = [subject, reference].map((shard) => shard.derive(prefix, true, prefix.length >= 2 ? 1 : 0));
    t.deepEqual(got!.docsByTypo.map((docs) => docs.toArray()), expected!.docsByTypo.map((docs) => docs.toArray()), prefix);
    t.deepEqual(got!.docs.toArray(), expected!.docs.toArray(), prefix);
    const q = `${words[Math.floor(random() * words.length)]} ${prefix}`;
    const [hits, expectedHits] = [subject, reference].map((shard) => shard.search({ q, hitsWanted: 20, matchingStrategy: 'last' }).hits);
    t.deepEqual(hits, expectedHits, q);
  }
}

for (let round = 0; round < 4; round++) {
  test(`randomized: kept prefix lists are their words' unions through writes (made before, between and after them) and a snapshot (round ${round})`, (t) => {
    const input = material(7300 + round);
    const subject = shardOf(true);
    const reference = shardOf(false);
    const both = [subject, reference];
    write(both, input, 300, 400);
    subject.prepareForSearch();
    t.false(subject.needsPreparing, 'nothing built before searches');
    t.is(subject.prefixDocs.listOf('ab'), undefined, 'not made yet');
    // Half the prefixes made, writes (words new to the shard among them), then the other half.
    const prefixes = prefixesOf(subject);
    for (const prefix of prefixes.filter((_, k) => k % 2 === 0)) makePrefix(subject, prefix);
    t.true(holdsPlainDefinition(t, subject, 'made') > 10);
    for (let k = 0; k < 40; k++) {
      write(both, input, 5, 500);
      for (const shard of both) shard.upsert(10_000 + k, { id: 0, title: `${'dcba'.slice(k % 4)}e${k} ab`, code: 'abd' });
    }
    holdsPlainDefinition(t, subject, 'made, then written');
    for (const prefix of prefixesOf(subject)) makePrefix(subject, prefix);
    // Each prefix of two words or more now (and those made when they had two).
    const several = prefixesOf(subject).filter((prefix) => subject.derive(prefix, true, 0, [], false).words.length > 1).length;
    t.true(subject.prefixDocs.prefixesMade >= several && several > 10, `${subject.prefixDocs.prefixesMade} made, ${several} of two words or more`);
    holdsPlainDefinition(t, subject, 'all made');
    sameDerivations(t, subject, reference, input);
    reference.prefixUnions = true;
    sameDerivations(t, reference, subject, input);
    reference.prefixUnions = false;
    reference.caches.clear();
    for (let phase = 0; phase < 3; phase++) {
      write(both, input, 80, 500);
      holdsPlainDefinition(t, subject, `after writes (phase ${phase})`);
      sameDerivations(t, subject, reference, input);
    }
    const config = compileIndexConfig(SETTINGS);
    const identity = { indexUid: 'docs', shard: 0, shardCount: 1, commitSeq: 1, settingsFingerprint: settingsFingerprint(config.settings) };
    const restored = decodeShardSnapshot(Buffer.concat(encodeShardSnapshot(subject, identity)), identity, config);
    t.is(restored.prefixDocs.prefixesMade, subject.prefixDocs.prefixesMade, 'restored as made');
    t.is(restored.prefixRanks.prefixesMade, subject.prefixRanks.prefixesMade);
    t.true(holdsPlainDefinition(t, restored, 'restored') > 10);
    write([restored, reference], input, 120, 500);
    holdsPlainDefinition(t, restored, 'restored, then written');
    sameDerivations(t, restored, reference, input);
    // Deleting everything empties every prefix.
    for (const docId of restored.documents.toArray()) restored.delete(docId);
    t.is(holdsPlainDefinition(t, restored, 'all deleted'), 0);
  });
}

test('the switch off drops the lists and keeps none; on again, they are made anew', (t) => {
  const input = material(7400);
  const shard = shardOf(true);
  write([shard], input, 200, 300);
  const prefixes = prefixesOf(shard);
  for (const prefix of prefixes) makePrefix(shard, prefix);
  t.true(shard.memoryBytes().derived.slice(-3).every((bytes) => bytes > 0));
  shard.prefixUnions = false;
  for (const prefix of prefixes) makePrefix(shard, prefix);
  t.is(shard.prefixDocs.listOf(prefixes[0]!), undefined);
  t.deepEqual(shard.memoryBytes().derived.slice(-3), [0, 0, 0]);
  write([shard], input, 50, 300);
  shard.prefixUnions = true;
  shard.caches.clear();
  for (const prefix of prefixes) makePrefix(shard, prefix);
  t.true(holdsPlainDefinition(t, shard, 'made again') > 10);
});

test('a prefix term\'s zero-typo level is the kept list itself, not a union made for the derivations', (t) => {
  // Default typo settings: no typo budget below 5 letters, so a short prefix term is its zero-typo words alone.
  const shard = new ShardIndex(compileIndexConfig({}));
  for (let docId = 0; docId < 400; docId++) shard.upsert(docId, { id: docId, title: `ab${docId % 50} x${docId % 3}`, body: `x ab${docId % 7}` });
  shard.flushWrites();
  shard.prepareForSearch();
  const derivations = shard.derive('ab', true, 0, [], false);
  t.is(derivations.words.length, 50);
  t.true(derivations.docsByTypo[0] === shard.prefixDocs.listOf('ab'), 'the kept list');
  t.false((derivations.owned ?? []).some((owned) => owned === derivations.docsByTypo[0]), 'not released with the derivations');
  // Ranked by attribute (rank 0 only: title) and position from the kept lists by key.
  t.is(shard.search({ q: 'ab', hitsWanted: 5, matchingStrategy: 'last' }).hits.length, 5);
  const searched = shard.derive('ab', true, 0, [], false);
  t.true(searched.docsByRank?.at(0) === shard.prefixRanks.listOf('ab', 0), 'rank 0: the kept list');
  t.true(searched.docsByPosition?.at(0) === shard.prefixPositions.listOf('ab', 0), 'position 0: the kept list');
  shard.prefixUnions = false;
  shard.caches.clear();
  const plain = shard.derive('ab', true, 0, [], false);
  t.deepEqual(plain.docs.toArray(), derivations.docs.toArray());
});
