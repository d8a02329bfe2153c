// A shard's caches across writes (src/shard/shard-caches.ts): an entry is dropped only when a write
// touched one of its words or a word it could take got its first documents, so the cache keeps what
// the other writes leave alone. Randomized writes interleaved with repeated searches must answer
// exactly as an index built fresh from the same documents: a stale entry must never answer.
import test, { type ExecutionContext } from 'ava';
import { ShardIndex } from '../../src/shard/shard-index.js';
import { compileIndexConfig } from '../../src/shard/index-config.js';
import type { IndexSettings } from '../../src/settings/index-settings.js';
import { randomFrom } from './seeded-lcg.js';
import { makeDocument, WORDS } from './shard-twins.js';

/** Words only later writes bring: typo neighbours and prefix extensions of the queried words, and rare words past the first ones. */
const LATE_WORDS = ['stair', 'warz', 'jedis', 'empires', 'galaxies', 'dakr', 'sidewalk', 'hopes', 'starwars', 'ba', 'farther'];

function lateDocument(random: () => number, id: number): Record<string, unknown> {
  const document = makeDocument(random, id, 120);
  if (random() < 0.5) document['title'] = `${document['title'] as string} ${LATE_WORDS[Math.floor(random() * LATE_WORDS.length)]!}`;
  return document;
}

/** A fixed pool, so the same terms are asked again across writes (cached entries are read, not made anew). */
function queryPool(random: () => number): string[] {
  const pool = ['star wars', 'sta', 'stai', 'war', 'warz', 'jedi', 'jedis empire', 'the dark side', 'dakr', 'galaxy far away', 'gala',
    'r1', 'r7', 'r70', 'r100', 'r11', 'side', 'sidewalk', 'hope', 'starwars', 'sidw', 'bak', 'back', 'far', 'farthr', 'r5 star'];
  for (let k = 0; k < 14; k++) {
    const words = Array.from({ length: 1 + Math.floor(random() * 3) }, () => (random() < 0.3 ? `r${Math.floor(random() * 120)}` : WORDS[Math.floor(random() * WORDS.length)]!));
    pool.push(words.join(' '));
  }
  return pool;
}

function freshIndex(settings: Partial<IndexSettings>, documents: ReadonlyMap<number, Record<string, unknown>>): ShardIndex {
  const shard = new ShardIndex(compileIndexConfig(settings));
  for (const docId of [...documents.keys()].sort((a, b) => a - b)) shard.upsert(docId, documents.get(docId)!);
  shard.flushWrites();
  return shard;
}

/**
 * `searches` random searches from `pool` on the written index and on one built from the same documents at
 * once: the same hits and candidates; returns how many hits were compared.
 */
function compareWithFresh(t: ExecutionContext, subject: ShardIndex, reference: ShardIndex,
  { random, pool, searches, manyHits, step }: { random: () => number; pool: readonly string[]; searches: number; manyHits: number; step: number }): number {
  let compared = 0;
  for (let k = 0; k < searches; k++) {
    const q = pool[Math.floor(random() * pool.length)]!;
    const hitsWanted = random() < 0.3 ? manyHits : 1 + Math.floor(random() * 30);
    const matchingStrategy = random() < 0.7 ? 'last' as const : 'all' as const;
    const expected = reference.search({ q, hitsWanted, matchingStrategy });
    const actual = subject.search({ q, hitsWanted, matchingStrategy });
    t.deepEqual(actual.hits, expected.hits, `step ${step} q=${JSON.stringify(q)} ${matchingStrategy}`);
    t.is(actual.candidates, expected.candidates, `step ${step} q=${JSON.stringify(q)} ${matchingStrategy}`);
    compared += actual.hits.length;
  }
  return compared;
}

const SETTINGS: Partial<IndexSettings>[] = [
  {},
  { synonyms: { r5: ['r105'], hope: ['r110 r111'], jedi: ['warz'] } },
  // Typos from 3 letters (more typo walks), none in tags (their words interned under the marked spelling).
  { typoTolerance: { enabled: true, minWordSizeForTypos: { oneTypo: 3, twoTypos: 5 }, disableOnWords: [], disableOnNumbers: false, disableOnAttributes: ['tags'] } },
];

for (let round = 0; round < 6; round++) {
  test(`writes interleaved with repeated searches answer as a fresh index (round ${round})`, (t) => {
    const settings = SETTINGS[round % SETTINGS.length]!;
    const random = randomFrom(500 + round);
    const documents = new Map<number, Record<string, unknown>>();
    const subject = new ShardIndex(compileIndexConfig(settings));
    const documentCount = 800;
    for (let docId = 0; docId < documentCount; docId++) {
      const document = makeDocument(random, docId, 60);
      documents.set(docId, document);
      subject.upsert(docId, document);
    }
    subject.flushWrites();
    if (round % 2 === 0) subject.prepareForSearch();
    const pool = queryPool(random);
    let compared = 0;
    for (let step = 0; step < 24; step++) {
      // A few writes: rewrites with new and late words, deletions (a word may lose its last document, then come back).
      const writes = 1 + Math.floor(random() * 4);
      for (let k = 0; k < writes; k++) {
        const docId = Math.floor(random() * (documentCount + 40));
        if (random() < 0.3) {
          subject.delete(docId);
          documents.delete(docId);
        } else {
          const document = step < 4 ? makeDocument(random, docId, 60) : lateDocument(random, docId);
          subject.upsert(docId, document);
          documents.set(docId, document);
        }
      }
      if (random() < 0.5) subject.flushWrites();
      compared += compareWithFresh(t, subject, freshIndex(settings, documents), { random, pool, searches: 10, manyHits: 300, step });
    }
    t.true(compared > 1000, `${compared} hits compared`);
  });
}

/** The words a term stands for, by their text (word ids differ between two indexes). */
function wordsOf(shard: ShardIndex, word: string, isPrefix: boolean, budget: number): string[] {
  return shard.derive(word, isPrefix, budget).words.map((derivation) => `${shard.vocabulary.wordOf(derivation.wordId)}/${derivation.typos}/${derivation.exact}`).sort();
}

for (let round = 0; round < 3; round++) {
  test(`writes interleaved with repeated derivations derive the words a fresh index does (round ${round})`, (t) => {
    const settings = SETTINGS[round]!;
    const random = randomFrom(700 + round);
    const documents = new Map<number, Record<string, unknown>>();
    const subject = new ShardIndex(compileIndexConfig(settings));
    for (let docId = 0; docId < 300; docId++) {
      const document = makeDocument(random, docId, 60);
      documents.set(docId, document);
      subject.upsert(docId, document);
    }
    const terms = ['star', 'sta', 'stai', 'warz', 'jedi', 'dakr', 'r1', 'r7', 'r70', 'side', 'farthr', 'starwars', 'ba', 'gal', 'r105'];
    for (let step = 0; step < 40; step++) {
      for (let k = 0; k < 3; k++) {
        const docId = Math.floor(random() * 320);
        if (random() < 0.4) {
          subject.delete(docId);
          documents.delete(docId);
        } else {
          const document = lateDocument(random, docId);
          subject.upsert(docId, document);
          documents.set(docId, document);
        }
      }
      const reference = freshIndex(settings, documents);
      for (const term of terms) {
        for (const [isPrefix, budget] of [[false, 0], [true, 0], [false, 1], [true, 2]] as const) {
          t.deepEqual(wordsOf(subject, term, isPrefix, budget), wordsOf(reference, term, isPrefix, budget), `step ${step} ${term} ${isPrefix} ${budget}`);
        }
      }
    }
  });
}

test('a write keeps the cached derivations of the words it does not touch, and drops those it does', (t) => {
  const shard = new ShardIndex(compileIndexConfig({}));
  shard.cacheOnSecondMiss = false;
  shard.upsert(1, { id: 1, title: 'star wars' });
  shard.upsert(2, { id: 2, title: 'dark side' });
  const star = shard.derive('star', false, 1);
  const dark = shard.derive('dark', true, 0);
  t.is(shard.derive('star', false, 1), star, 'read again from the cache');
  shard.upsert(3, { id: 3, title: 'galaxy wars' });
  t.is(shard.derive('star', false, 1), star, 'kept: the write holds neither star nor a word it could take');
  t.is(shard.derive('dark', true, 0), dark);
  shard.upsert(4, { id: 4, title: 'stay darker' });
  const starAgain = shard.derive('star', false, 1);
  t.not(starAgain, star, 'stay is one typo from star: derived again');
  t.deepEqual(starAgain.docs.toArray(), [1, 4]);
  t.not(shard.derive('dark', true, 0), dark, 'darker starts with dark: derived again');
  const galaxy = shard.derive('galaxy', false, 0);
  shard.delete(3);
  t.not(shard.derive('galaxy', false, 0), galaxy, 'its document deleted: derived again');
  t.deepEqual(shard.derive('galaxy', false, 0).docs.toArray(), []);
  const wars = shard.derive('wars', false, 0);
  shard.upsert(5, { id: 5, title: 'empire' });
  t.is(shard.derive('wars', false, 0), wars);
  t.true(shard.caches.byteSizes().derivations > 0);
});

/** New words only appended documents bring: typo neighbours (one and two edits, first letter too) and prefix extensions of cached terms. */
const NEIGHBOURS = ['stars', 'sttar', 'tsar', 'wars', 'warsz', 'jedii', 'jedy', 'empyre', 'empires', 'galaxys', 'gallaxy', 'sidee', 'sid', 'darker', 'darkk',
  'hopeful', 'hop', 'farr', 'farthest', 'backs', 'bakc', 'r1x', 'r70s', 'r7'];

/** 400 documents in a subject keeping every term from its first miss (built for search or not), and a pool of queries with short prefixes. */
function appendingSubject(settings: Partial<IndexSettings>, random: () => number, built: boolean):
  { documents: Map<number, Record<string, unknown>>; subject: ShardIndex; pool: string[] } {
  const documents = new Map<number, Record<string, unknown>>();
  const subject = new ShardIndex(compileIndexConfig(settings));
  subject.cacheOnSecondMiss = false;
  for (let docId = 0; docId < 400; docId++) {
    const document = makeDocument(random, docId, 60);
    documents.set(docId, document);
    subject.upsert(docId, document);
  }
  subject.flushWrites();
  if (built) subject.prepareForSearch();
  return { documents, subject, pool: [...queryPool(random), 'sta', 'st', 'ja', 'emp', 'gal', 'sid', 'da', 'hop', 'r7', 'star ja', 'dark si', 'wars jed'] };
}

for (let round = 0; round < 4; round++) {
  test(`appended documents only (new ids, new neighbour words) between repeated searches answer as a fresh index (round ${round})`, (t) => {
    // Documents only arrive (as the bench's mixed phase writes new rows): no removal, so what a cache keeps
    // across them may be checked or amended instead of dropped; a term cached before a neighbour word
    // appeared must take it, and each typo level must hold the appended documents at their best level.
    // (It failed in every round on the patching tried in 18f989a with new words left out of the patch.)
    const settings = SETTINGS[round % SETTINGS.length]!;
    const random = randomFrom(900 + round);
    const { documents, subject, pool } = appendingSubject(settings, random, round % 2 === 0);
    let nextId = 400;
    let compared = 0;
    for (let step = 0; step < 30; step++) {
      const appended = 1 + Math.floor(random() * 6);
      for (let k = 0; k < appended; k++) {
        const docId = nextId++;
        const document = makeDocument(random, docId, 60);
        if (random() < 0.7) document['title'] = `${document['title'] as string} ${NEIGHBOURS[Math.floor(random() * NEIGHBOURS.length)]!}`;
        documents.set(docId, document);
        subject.upsert(docId, document);
      }
      if (random() < 0.5) subject.flushWrites();
      compared += compareWithFresh(t, subject, freshIndex(settings, documents), { random, pool, searches: 12, manyHits: 500, step });
    }
    t.true(compared > 1000, `${compared} hits compared`);
  });
}

/** The terms whose walks the batch-drop tests derive again (prefixes, typos, neighbours of NEIGHBOURS and LATE_WORDS). */
const WALKED_TERMS = ['star', 'sta', 'stai', 'warz', 'jedi', 'dakr', 'r1', 'r7', 'r70', 'side', 'farthr', 'gal', 'emp', 'hop', 'bak'];

for (let round = 0; round < 4; round++) {
  test(`large write batches' drops keep the lexicon walks, and searches answer as a fresh index (round ${round})`, (t) => {
    // ShardEngine.writeBatch drops the caches before a batch of > 64 documents (dropCachesForBatch): the
    // walks (word ids) stay, checked when next read against the words emptied or appeared since, as the
    // log goes on across the drop. Batches here rewrite, delete (a walk's word may lose its last document)
    // and append neighbour words (a kept walk must take them); both the searches and the derived words
    // must be a fresh index's.
    const settings = SETTINGS[round % SETTINGS.length]!;
    const random = randomFrom(1100 + round);
    const { documents, subject, pool } = appendingSubject(settings, random, round % 2 === 0);
    let nextId = 400;
    let compared = 0;
    let kept = 0;
    for (let step = 0; step < 30; step++) {
      const batch = random() < 0.6;
      if (batch) {
        subject.dropCachesForBatch();
        kept += subject.caches.walksKept;
      }
      const writes = 1 + Math.floor(random() * (batch ? 10 : 3));
      for (let k = 0; k < writes; k++) {
        const roll = random();
        const docId = roll < 0.5 ? nextId++ : Math.floor(random() * nextId);
        if (roll > 0.85) {
          subject.delete(docId);
          documents.delete(docId);
          continue;
        }
        const document = random() < 0.5 ? lateDocument(random, docId) : makeDocument(random, docId, 60);
        if (random() < 0.6) document['title'] = `${document['title'] as string} ${NEIGHBOURS[Math.floor(random() * NEIGHBOURS.length)]!}`;
        documents.set(docId, document);
        subject.upsert(docId, document);
        // Searches between the writes of a batch (its yield points): entries made then are checked against the rest.
        if (batch && random() < 0.2) subject.search({ q: pool[Math.floor(random() * pool.length)]!, hitsWanted: 10, matchingStrategy: 'last' });
      }
      if (random() < 0.5) subject.flushWrites();
      const reference = freshIndex(settings, documents);
      compared += compareWithFresh(t, subject, reference, { random, pool, searches: 10, manyHits: 300, step });
      const [isPrefix, budget] = ([[false, 0], [true, 0], [false, 1], [true, 2], [false, 2]] as const)[step % 5]!;
      for (const term of WALKED_TERMS) t.deepEqual(wordsOf(subject, term, isPrefix, budget), wordsOf(reference, term, isPrefix, budget), `step ${step} ${term} ${isPrefix} ${budget}`);
    }
    t.true(compared > 1000, `${compared} hits compared`);
    t.true(kept > 100, `${kept} walks kept across the drops`);
  });
}

test('a large batch\'s drop keeps a walk, which takes the words appeared and leaves those emptied since', (t) => {
  const shard = new ShardIndex(compileIndexConfig({}));
  shard.cacheOnSecondMiss = false;
  shard.upsert(1, { id: 1, title: 'star wars' });
  shard.upsert(2, { id: 2, title: 'stars side' });
  const star = shard.derive('star', false, 1);
  t.is(shard.derive('star', false, 1), star);
  shard.dropCachesForBatch();
  t.is(shard.caches.walksKept, 1, 'the walk is kept');
  t.is(shard.caches.derivations.size, 0, 'the derivations are dropped');
  shard.upsert(3, { id: 3, title: 'stay' });
  t.deepEqual(shard.derive('star', false, 1).words.map((word) => shard.vocabulary.wordOf(word.wordId)).sort(), ['star', 'stars', 'stay']);
  shard.dropCachesForBatch();
  shard.delete(2);
  t.deepEqual(shard.derive('star', false, 1).words.map((word) => shard.vocabulary.wordOf(word.wordId)).sort(), ['star', 'stay']);
  shard.keepWalksOnDrop = false;
  shard.derive('star', false, 1);
  shard.dropCachesForBatch();
  t.is(shard.caches.walksKept, 0, 'switched off: dropped whole');
});

test('a walk stays kept across later drops until its term is asked for again', (t) => {
  const shard = new ShardIndex(compileIndexConfig({}));
  shard.cacheOnSecondMiss = false;
  shard.upsert(1, { id: 1, title: 'star wars' });
  shard.upsert(2, { id: 2, title: 'stars side' });
  shard.derive('star', false, 1);
  shard.dropCachesForBatch();
  t.is(shard.caches.walksKept, 1);
  // Another term cached and dropped: the first drop's walk is not asked for meanwhile, and stays beside it.
  shard.derive('side', false, 1);
  shard.dropCachesForBatch();
  t.is(shard.caches.walksKept, 2, 'both walks are kept');
  shard.upsert(3, { id: 3, title: 'stay' });
  // Taken out when its term is derived again (the derivations then carry it), and still checked against the words appeared since.
  t.deepEqual(shard.derive('star', false, 1).words.map((word) => shard.vocabulary.wordOf(word.wordId)).sort(), ['star', 'stars', 'stay']);
  t.is(shard.caches.walksKept, 1);
});
