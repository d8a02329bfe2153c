// A word term's derivations with the query's n-gram alternatives (`for re` also matches `forrest`):
// combineNgrams makes the same words and typo levels as withAlternatives without copying the base's
// big lists, memoizes the combination on the term's derivations (withNgrams), and the rank / position
// lists and the near-pair lookups' rare documents of a combination are made from the base's plus the
// extra words' (ShardIndex.memoNgramDerivations). Held to the plain path: the pure functions on random
// bitmaps, and twin shards (switch on / off) answering random n-gram queries under random writes.
import test, { type ExecutionContext } from 'ava';
import roaring from 'roaring';
import { ShardIndex } from '../../src/shard/shard-index.js';
import { compileIndexConfig } from '../../src/shard/index-config.js';
import { combineNgrams, withAlternatives, withNgrams, type TermAlternative, type TermDerivations } from '../../src/shard/words/derivations.js';
import { randomFrom } from './seeded-lcg.js';

const { RoaringBitmap32 } = roaring;
type RoaringBitmap32 = roaring.RoaringBitmap32;

function randomDocs(random: () => number, span: number, share: number): RoaringBitmap32 {
  const ids: number[] = [];
  for (let docId = 0; docId < span; docId++) if (random() < share) ids.push(docId);
  return new RoaringBitmap32(ids);
}

/** Disjoint levels (some empty), their union as docs, words with ids below 40. */
function randomBase(random: () => number): TermDerivations {
  const span = 200;
  const levels: RoaringBitmap32[] = [];
  const seen = new RoaringBitmap32();
  for (let typos = 0; typos < 3; typos++) {
    const level = random() < 0.25 ? new RoaringBitmap32() : randomDocs(random, span, random() * 0.5);
    level.andNotInPlace(seen);
    seen.orInPlace(level);
    levels.push(level);
  }
  const words = Array.from({ length: 1 + Math.floor(random() * 12) }, (_, k) => ({ wordId: k * 3, typos: Math.floor(random() * 3), exact: k === 0 }));
  return { words, docs: seen, docsByTypo: levels, ...(random() < 0.3 ? { phrases: [{ wordIds: [1, 2], typos: 1, docs: randomDocs(random, span, 0.05) }] } : {}) };
}

function randomAlternatives(random: () => number): TermAlternative[] {
  return Array.from({ length: Math.floor(random() * 4) }, () => ({
    wordIds: Array.from({ length: 1 + Math.floor(random() * 4) }, () => Math.floor(random() * 45)),
    docs: random() < 0.15 ? new RoaringBitmap32() : randomDocs(random, 200, random() * 0.3),
    typos: 1 + Math.floor(random() * 2),
  }));
}

const contents = (derivations: TermDerivations) => ({
  words: derivations.words,
  phrases: (derivations.phrases ?? []).map((phrase) => ({ ...phrase, docs: phrase.docs.toArray() })),
  docs: derivations.docs.toArray(),
  docsByTypo: derivations.docsByTypo.map((docs) => docs.toArray()),
});

test('combineNgrams makes what withAlternatives makes, and notes the extra words', (t) => {
  const random = randomFrom(4242);
  for (let round = 0; round < 400; round++) {
    const base = randomBase(random);
    const alternatives = randomAlternatives(random);
    const plain = withAlternatives(base, alternatives);
    const combined = combineNgrams(base, alternatives);
    t.deepEqual(contents(combined), contents(plain), `round ${round}`);
    if (combined === base) continue;
    const baseIds = new Set(base.words.map((word) => word.wordId));
    t.deepEqual(combined.ngramOf?.extraWordIds, combined.words.slice(base.words.length).map((word) => word.wordId));
    t.true(combined.ngramOf!.extraWordIds.every((wordId) => !baseIds.has(wordId)));
    // The base's own bitmaps are never among the combination's own (freed with it).
    for (const owned of combined.owned ?? []) t.false([base.docs, ...base.docsByTypo].includes(owned));
  }
});

test('withNgrams memoizes a few combinations per derivations object, by key', (t) => {
  const random = randomFrom(77);
  const base = randomBase(random);
  const alternatives = [{ wordIds: [41], docs: randomDocs(random, 200, 0.3), typos: 1 }];
  const first = withNgrams(base, alternatives, '1f,');
  t.is(withNgrams(base, alternatives, '1f,'), first);
  const second = withNgrams(base, alternatives, '2,');
  t.not(second, first);
  withNgrams(base, alternatives, '3,');
  t.not(withNgrams(base, alternatives, '1f,'), first, 'the oldest combination went');
  t.true(base.withNgrams!.length <= 2);
});

// Words whose concatenations are words too, prefixes with many words, and rare words.
const WORDS = ['for', 'rest', 'forrest', 're', 'react', 'render', 'redux', 'reuse', 'remote', 'form', 'format', 'forum', 'sun', 'flower',
  'sunflower', 'type', 'script', 'typescript', 'web', 'site', 'website', 'data', 'base', 'database', 'the', 'next', 'js', 'nextjs'];

const RARE_STEMS = ['forre', 'sunfl', 'typesc', 'websi', 'datab', 'nextj', 'thene', 'reactre'];

function document(random: () => number, id: number): Record<string, unknown> {
  // Rare words: under a short prefix of the common ones, and rare completions of concatenations (`for re` -> `forre17`).
  const rare = () => (random() < 0.5 ? `${WORDS[Math.floor(random() * 12)]!.slice(0, 2)}r${Math.floor(random() * 90)}`
    : `${RARE_STEMS[Math.floor(random() * RARE_STEMS.length)]}${Math.floor(random() * 40)}`);
  const word = () => (random() < 0.25 ? rare() : WORDS[Math.floor(WORDS.length * random() ** 1.5)]!);
  const text = (max: number) => Array.from({ length: 1 + Math.floor(random() * max) }, word).join(' ');
  return { id, title: text(5), body: text(12) };
}

/** Adjacent query words whose concatenation (or its prefix) is a word of the shard. */
const JOINED = [['for', 'rest'], ['sun', 'flower'], ['type', 'script'], ['web', 'site'], ['data', 'base'], ['next', 'js'], ['the', 'next'], ['react', 'redux']];

function query(random: () => number): string {
  const count = 2 + Math.floor(random() * 2);
  const words = Array.from({ length: count }, () => WORDS[Math.floor(random() * WORDS.length)]!);
  if (random() < 0.6) words.splice(Math.floor(random() * (count - 1)), 2, ...JOINED[Math.floor(random() * JOINED.length)]!);
  // As typed: the last word often cut to a short prefix.
  if (random() < 0.6) words[count - 1] = words[count - 1]!.slice(0, 1 + Math.floor(random() * 3));
  return words.join(' ');
}

function combinationsHeld(shard: ShardIndex): Set<TermDerivations> {
  const held = new Set<TermDerivations>();
  for (const derivations of shard.caches.derivations.values()) for (const memo of derivations.withNgrams ?? []) held.add(memo.derivations);
  return held;
}

type PrivateNearPairs = { rareDocsOf(wordIds: readonly number[]): RoaringBitmap32 };

/**
 * The lists the searches made for the combinations held (from their base's and extra words' ones):
 * each key's rank / position list and the rare words' documents of the near-pair lookups, against
 * those made from all their words at once. Returns how many combinations had some list to check.
 */
function sameListsAsPlain(t: ExecutionContext, shard: ShardIndex, label: string, madeBefore: ReadonlySet<TermDerivations>): number {
  let checked = 0;
  const nearPairs = shard.nearPairs as unknown as PrivateNearPairs;
  for (const combination of combinationsHeld(shard)) {
    {
      // Those made since the last write only (an older one may hold lists a write changed since: it is asked no more).
      if (madeBefore.has(combination) || combination.ngramOf === undefined || (combination.phrases ?? []).length > 0) continue;
      const wordIds = combination.words.map((word) => word.wordId);
      let any = false;
      for (const [lists, postings] of [[combination.docsByRank, shard.rankPostings], [combination.docsByPosition, shard.positionPostings]] as const) {
        if (lists === undefined) continue;
        any = true;
        const plain = postings.unionByKey(wordIds);
        for (let key = 0; key < lists.length; key++) {
          t.deepEqual((lists.at(key) ?? new RoaringBitmap32()).toArray(), (plain[key] ?? new RoaringBitmap32()).toArray(), `${label} key ${key}`);
        }
      }
      if (combination.wordIds !== undefined) {
        any = true;
        // The memo's answer (made from the parts when a lookup asked) against one made from a copy of the words.
        t.deepEqual(nearPairs.rareDocsOf(combination.wordIds).toArray(), nearPairs.rareDocsOf([...combination.wordIds]).toArray(), `${label} rare documents`);
      }
      if (any) checked++;
    }
  }
  return checked;
}

for (let round = 0; round < 4; round++) {
  test(`n-gram combinations answer as made per search, under writes (round ${round})`, (t) => {
    const random = randomFrom(9100 + round);
    const subject = new ShardIndex(compileIndexConfig({}));
    const reference = new ShardIndex(compileIndexConfig({}));
    t.true(subject.memoNgramDerivations, 'on by default');
    reference.memoNgramDerivations = false;
    // Cached from the first miss in some rounds: the combinations then live on cached derivations.
    subject.cacheOnSecondMiss = round % 2 === 0;
    let nextId = 0;
    const write = (count: number) => {
      for (let k = 0; k < count; k++) {
        const roll = random();
        const docId = roll < 0.6 || nextId === 0 ? nextId++ : Math.floor(random() * nextId);
        if (roll > 0.9) {
          subject.delete(docId);
          reference.delete(docId);
        } else {
          const doc = document(random, docId);
          subject.upsert(docId, doc);
          reference.upsert(docId, doc);
        }
      }
      subject.flushWrites();
      reference.flushWrites();
    };
    write(600);
    subject.prepareForSearch();
    reference.prepareForSearch();
    let combined = 0;
    let checked = 0;
    for (let step = 0; step < 16; step++) {
      const queries = Array.from({ length: 40 }, () => query(random));
      const madeBefore = combinationsHeld(subject);
      // Each query twice on the subject: the second takes the memoized combination.
      for (const q of [...queries, ...queries]) {
        const hitsWanted = random() < 0.3 ? 200 : 20;
        const expected = reference.search({ q, hitsWanted, matchingStrategy: 'last' });
        const actual = subject.search({ q, hitsWanted, matchingStrategy: 'last' });
        t.deepEqual(actual.hits, expected.hits, `step ${step} q=${JSON.stringify(q)}`);
        t.is(actual.candidates, expected.candidates, `step ${step} q=${JSON.stringify(q)}`);
      }
      combined += [...subject.caches.derivations.values()].filter((derivations) => (derivations.withNgrams ?? []).some((memo) => memo.derivations.ngramOf !== undefined)).length;
      checked += sameListsAsPlain(t, subject, `step ${step}`, madeBefore);
      write(step % 3 === 0 ? 80 : 4);
    }
    if (round % 2 === 0) t.true(combined > 10, `combinations held on cached derivations: ${combined}`);
    t.true(checked >= 4, `combinations' lists checked: ${checked}`);
    // Let go of with their base (a large batch's drop), the combinations' own bitmaps are freed by releaseRetired, not left to the collector.
    const owned = [...combinationsHeld(subject)].flatMap((combination) => combination.owned ?? []).filter((bitmap) => !bitmap.isEmpty);
    t.true(owned.length > 0, 'combinations own bitmaps');
    subject.dropCachesForBatch();
    subject.caches.releaseRetired(Infinity);
    t.true(owned.every((bitmap) => bitmap.isEmpty), 'freed with their base');
  });
}
