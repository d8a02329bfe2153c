// The lexicon's DeletionIndex (src/shard/words/deletion-index.ts) restricts the typo walks to the runs
// of words that may be near the query: held here to the walks over every word of the query's first
// letter. (1) On random lexicons (few letters, so words are often one or two edits apart and the caps
// of 150 / 50 typo words are reached; accents, astral letters, words of typo-disabled attributes, words
// added after the index was built, in the lexicon's second list, the index dropped once they are many
// and built again over them),
// deriveWordIds finds the same words in
// the same order with the index and without it, at one and two typos, as a prefix and as a whole word.
// (2) The walk over the index's runs makes the same visits, in the same order and with the same
// distances, as the walk over every word, also when the visitor stops it. (3) A build in steps takes
// the words added meanwhile and is thrown away when the lexicon adopts other words. (4) Searches of a
// shard answer alike with and without it. (5) A shard restored from a snapshot keeps the index saved
// with it (the same candidates, also for words written after); one saved before its build gets it
// built in slices, never at once, and answers alike meanwhile.
import test from 'ava';
import { deriveWordIds, exactAttributeKey } from '../../src/shard/words/derivations.js';
import { Vocabulary } from '../../src/shard/words/vocabulary.js';
import { walkFuzzy } from '../../src/shard/words/fuzzy-walk.js';
import { prefixRange } from '../../src/shard/words/lexicon.js';
import { DeletionIndex, walkCandidateRuns } from '../../src/shard/words/deletion-index.js';
import { finishSteps } from '../../src/shard/sliced-jobs.js';
import { ShardIndex } from '../../src/shard/shard-index.js';
import { compileIndexConfig } from '../../src/shard/index-config.js';
import { randomFrom } from './seeded-lcg.js';
import { mutate, randomLexicon, queriesOf, typoRoundSettings } from './random-edits.js';
import { ShardEngine, BUILD_AT_ONCE_FROM_QUERIES } from '../../src/shard/shard-engine.js';
import { SlicedJobs } from '../../src/shard/sliced-jobs.js';
import { decodeShardSnapshot, encodeShardSnapshot, settingsFingerprint } from '../../src/shard/snapshot/shard-snapshot.js';

const ALPHABETS = [['a', 'b', 'c'], ['a', 'b', 'c', 'd', 'é', '𝒜'], ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']];

for (let round = 0; round < 9; round++) {
  test(`deriveWordIds finds the same words with and without the deletion index (round ${round})`, (t) => {
    const random = randomFrom(7100 + round);
    const letters = ALPHABETS[round % ALPHABETS.length]!;
    // Every third round, enough words added after the build that the lexicon merges its two lists.
    const merges = round % 3 === 0;
    const words = randomLexicon(random, letters, merges ? 6000 : 800);
    const vocabulary = new Vocabulary();
    let docId = 0;
    // Some words have no documents (deriveWordIds skips them), a tenth are of typo-disabled attributes.
    const addWord = (word: string, k: number) => {
      const id = vocabulary.intern(k % 10 === 0 ? exactAttributeKey(word) : word);
      if (k % 13 !== 0) vocabulary.addDocument(id, docId++);
    };
    const early = merges ? 800 : Math.floor(words.length * 0.7);
    words.slice(0, early).forEach(addWord);
    t.true(vocabulary.lexicon.deletionIndexDue);
    finishSteps(vocabulary.lexicon.deletionIndexSteps());
    t.false(vocabulary.lexicon.deletionIndexDue);
    let found = 0;
    let capped = 0;
    const compare = (queries: readonly string[]) => {
      for (const query of queries) {
        for (const budget of [1, 2]) {
          for (const isPrefix of [false, true]) {
            vocabulary.lexicon.useDeletionIndex = false;
            const expected = deriveWordIds(vocabulary, query, isPrefix, budget);
            vocabulary.lexicon.useDeletionIndex = true;
            const actual = deriveWordIds(vocabulary, query, isPrefix, budget);
            // (ava's deepEqual on every pair would take most of the test's time.)
            if (JSON.stringify(actual) !== JSON.stringify(expected)) t.deepEqual(actual, expected, `${JSON.stringify(query)} budget ${budget} prefix ${isPrefix}`);
            else t.pass();
            found += expected[1]!.length + expected[2]!.length;
            if (expected[1]!.length === 150 || expected[2]!.length === 50) capped++;
          }
        }
      }
    };
    const queries = queriesOf(random, letters, [...words.slice(0, early), ...words.slice(0, early), ...words], 250);
    compare(queries.slice(0, 80));
    // Added after the build: the index is told of each (they wait in the lexicon's younger lists), and
    // dropped once they are a quarter of it.
    const few = round % 2 === 0 ? Math.min(words.length - early, 60) : words.length - early;
    words.slice(early, early + few).forEach((word, k) => addWord(word, early + k));
    const kept = vocabulary.lexicon.deletionIndex();
    t.true(kept === null ? vocabulary.lexicon.deletionIndexDue : kept.entries.added > 0);
    compare(queries.slice(80, 160));
    words.slice(early + few).forEach((word, k) => addWord(word, early + few + k));
    // Merged into one list, or waiting in the pending and fresh lists (lexicon.ts).
    if (merges) t.is(vocabulary.lexicon.lists().length, 1);
    else t.true(vocabulary.lexicon.lists().length >= 2);
    // Built again at quiet time (its nodes numbered anew: the runs the walks above remembered by node are not the new nodes').
    finishSteps(vocabulary.lexicon.deletionIndexSteps());
    t.truthy(vocabulary.lexicon.deletionIndex());
    t.is(vocabulary.lexicon.deletionIndex()!.entries.added, 0);
    compare(queries.slice(160));
    t.true(found > 1500, `typo words found: ${found}`);
    if (merges) t.true(capped > 20, `derivations at a cap: ${capped}`);
  });
}

for (let round = 0; round < 6; round++) {
  test(`the walk over the index's runs visits what the walk over the first letter does, stopped or not (round ${round})`, (t) => {
    const random = randomFrom(8300 + round);
    const letters = ALPHABETS[round % ALPHABETS.length]!;
    const sorted = [...new Set(randomLexicon(random, letters, letters.length === 3 ? 600 : 1500))].sort();
    const index = new DeletionIndex();
    for (const word of sorted) index.add(word);
    let restricted = 0;
    for (const query of queriesOf(random, letters, sorted, 200)) {
      for (const budget of [1, 2]) {
        const candidates = index.candidates(query, budget);
        if (candidates === null) continue;
        restricted++;
        const [from, to] = prefixRange(sorted, query.slice(0, 1));
        for (const asPrefix of [false, true]) {
          // The visitor stops the walk after `stopAfter` visits (Infinity: never).
          for (const stopAfter of [Infinity, 1 + Math.floor(random() * 5)]) {
            const visits = (walk: (visit: (word: string, distance: number, index: number) => boolean) => boolean) => {
              const seen: unknown[] = [];
              const ended = walk((word, distance, index) => {
                seen.push([word, distance, index]);
                return seen.length < stopAfter;
              });
              return { seen, ended };
            };
            const expected = visits((visit) => walkFuzzy(sorted, query, budget, asPrefix, visit, from, to));
            const actual = visits((visit) => walkCandidateRuns(sorted, query, budget, asPrefix, visit, index.candidates(query, budget)!, from, to, null));
            if (JSON.stringify(actual) !== JSON.stringify(expected)) t.deepEqual(actual, expected, `${JSON.stringify(query)} budget ${budget} prefix ${asPrefix} stop after ${stopAfter}`);
            else t.pass();
          }
        }
      }
    }
    t.true(restricted > 150, `walks the index restricted: ${restricted}`);
  });
}

test('a build in steps takes the words added meanwhile, and is thrown away when the lexicon adopts other words', (t) => {
  const vocabulary = new Vocabulary();
  const lexicon = vocabulary.lexicon;
  const letters = ALPHABETS[2]!;
  const random = randomFrom(9100);
  const words = [...new Set(randomLexicon(random, letters, 20000))];
  words.slice(0, 15000).forEach((word) => vocabulary.intern(word));
  const build = lexicon.deletionIndexSteps();
  build.next();
  t.is(lexicon.deletionIndex(), null, 'not swapped in before its end');
  // Added while it builds (a write would cancel the build in a shard; the lexicon does not count on it).
  words.slice(15000).forEach((word) => vocabulary.intern(word));
  while (!build.next().done);
  const index = lexicon.deletionIndex()!;
  t.truthy(index);
  const late = words.slice(15000).find((word) => word.length >= 9)!;
  // A late word, one substitution away: its node must be among the candidates.
  const query = late.slice(0, 3) + (late[3] === 'a' ? 'b' : 'a') + late.slice(4);
  const found = index.candidates(query, 1)!.words.map((word) => word.slice(0, index.candidates(query, 1)!.depth));
  t.true(found.includes(late.slice(0, index.candidates(query, 1)!.depth)), `${late} among ${found.join(',')}`);

  const other = new Vocabulary();
  words.forEach((word) => other.intern(word));
  const rebuild = other.lexicon.deletionIndexSteps();
  rebuild.next();
  other.lexicon.adoptSorted(['zzzzzz']);
  while (!rebuild.next().done);
  t.is(other.lexicon.deletionIndex(), null, 'a build begun before adoptSorted is not swapped in');
  t.true(other.lexicon.deletionIndexDue);
  finishSteps(other.lexicon.deletionIndexSteps());
  t.deepEqual(other.lexicon.deletionIndex()!.candidates('zzzzzzz', 1)!.words, ['zzzzzz']);
});

const PARTS = ['moonlight', 'garden', 'sunflower', 'starfish', 'ocean', 'rainbows', 'fire', 'bright', 'lighthouse', 'marvelous'];

for (let round = 0; round < 4; round++) {
  test(`searches answer alike with and without the deletion index (round ${round})`, (t) => {
    const random = randomFrom(9500 + round);
    // Round 2: typos from fewer letters; round 3: no typos on the titles (words under a mark).
    const settings = typoRoundSettings(round, 6);
    const on = new ShardIndex(compileIndexConfig(settings));
    const off = new ShardIndex(compileIndexConfig(settings));
    off.deletionIndex = false;
    const letters = [...'abcdefghilmnorstuvw'];
    const word = () => {
      const part = PARTS[Math.floor(random() * PARTS.length)]!;
      return random() < 0.5 ? part : mutate(random, letters, part, 1 + Math.floor(random() * 2));
    };
    const text = (max: number) => Array.from({ length: 1 + Math.floor(random() * max) }, word).join(' ');
    for (let docId = 0; docId < 400; docId++) {
      const document = { id: docId, title: text(3), body: text(10) };
      on.upsert(docId, document);
      off.upsert(docId, document);
      // Built at quiet time (dropped once the words written after it are many, built again), then told of the words written after.
      if (docId === 200 || docId === 380) {
        on.prepareForSearch();
        off.prepareForSearch();
      }
    }
    t.truthy(on.vocabulary.lexicon.deletionIndex());
    for (let k = 0; k < 80; k++) {
      const count = 1 + Math.floor(random() * 3);
      const q = Array.from({ length: count }, () => mutate(random, letters, PARTS[Math.floor(random() * PARTS.length)]!, Math.floor(random() * 3))).join(' ')
        + (random() < 0.5 ? ' ' : '');
      const hitsWanted = 1 + Math.floor(random() * 30);
      const matchingStrategy = random() < 0.7 ? 'last' as const : 'all' as const;
      const a = on.search({ q, hitsWanted, matchingStrategy });
      const b = off.search({ q, hitsWanted, matchingStrategy });
      t.deepEqual(a.hits, b.hits, `q=${JSON.stringify(q)} ${matchingStrategy}`);
      t.is(a.candidates, b.candidates);
    }
  });
}

/** A shard of 2,000 documents of mutated words (typo neighbours), its queries, and what a snapshot of it restores to (in a ShardEngine). */
function restoredTwin(seed: number, prepare: (original: ShardIndex, text: (max: number) => string) => void) {
  const settings = { searchableAttributes: ['title', 'body'] };
  const random = randomFrom(seed);
  const letters = [...'abcdefghilmnorstuvw'];
  const original = new ShardIndex(compileIndexConfig(settings));
  const text = (max: number) => Array.from({ length: 1 + Math.floor(random() * max) },
    () => mutate(random, letters, PARTS[Math.floor(random() * PARTS.length)]!, Math.floor(random() * 3))).join(' ');
  for (let docId = 0; docId < 2000; docId++) original.upsert(docId, { id: docId, title: text(3), body: text(10) });
  prepare(original, text);
  const config = compileIndexConfig(settings);
  const identity = { indexUid: 'docs', shard: 0, shardCount: 1, commitSeq: 1, settingsFingerprint: settingsFingerprint(config.settings) };
  const bytes = Buffer.concat(encodeShardSnapshot(original, identity));
  const engine = new ShardEngine(0, 1);
  engine.loadIndex('docs', 1, settings, [], () => decodeShardSnapshot(bytes, identity, config));
  const restored = engine.loadedIndex('docs')!.shards.get(0)!;
  const queries = Array.from({ length: 40 }, () => text(3));
  const answers = (shard: ShardIndex) => JSON.stringify(queries.map((q) => shard.search({ q, hitsWanted: 10, matchingStrategy: 'last' }).hits));
  /** Another shard restored from the same file. */
  const again = () => decodeShardSnapshot(bytes, identity, config);
  return { original, restored, engine, text, answers, again };
}

test('a shard restored from a snapshot saved before its deletion index was built gets it in slices, never at once, and answers alike before and after', (t) => {
  // The derived structures built, not the lexicon's index (a save before any quiet-time build).
  const { original, restored, engine, answers } = restoredTwin(9700, (shard) => {
    for (const structure of shard.derived) finishSteps(structure.buildSteps());
  });
  t.is(original.vocabulary.lexicon.deletionIndex(), null);
  t.false(restored.needsPreparing, 'its derived structures came with the snapshot');
  t.true(restored.lexiconIndexDue);
  const expected = answers(original);
  t.is(answers(restored), expected, 'without the index');
  const slices: (() => void)[] = [];
  const jobs = new SlicedJobs({ schedule: (run) => slices.push(run) });
  // A batch of queries that would have any stale structure built at once.
  engine.prepareStaleShards(jobs, BUILD_AT_ONCE_FROM_QUERIES + 1);
  t.is(restored.vocabulary.lexicon.deletionIndex(), null, 'not built at once');
  t.true(jobs.has(restored));
  while (slices.length > 0) slices.shift()!();
  t.truthy(restored.vocabulary.lexicon.deletionIndex());
  t.false(restored.lexiconIndexDue);
  t.is(answers(restored), expected, 'with the index');
});

test('a shard restored from a snapshot saved with its deletion index has it at once: nothing to build, the same candidates and answers, also for words written later', (t) => {
  const late: string[] = [];
  const { original, restored, engine, text, answers, again } = restoredTwin(9701, (shard, text) => {
    shard.prepareForSearch();
    // Words written after the build: the index's second part (its hash table), saved too.
    for (let k = 0; k < 60; k++) shard.upsert(3000 + k, { id: 3000 + k, title: `${text(2)} zq${k}late`, body: text(4) });
    shard.flushWrites();
    late.push(...Array.from({ length: 60 }, (_, k) => `zq${k}late`));
  });
  const index = () => [original, restored].map((shard) => shard.vocabulary.lexicon.deletionIndex());
  t.truthy(index()[0]);
  t.true(index()[0]!.entries.added > 0, 'the original has words added after its build');
  t.false(restored.lexiconIndexDue, 'nothing for the lexicon to build');
  t.truthy(index()[1], 'the index came with the snapshot');
  t.deepEqual(index()[1]!.entries, index()[0]!.entries);
  t.is(restored.memoryBytes().lexicon, original.memoryBytes().lexicon);
  const slices: (() => void)[] = [];
  engine.prepareStaleShards(new SlicedJobs({ schedule: (run) => slices.push(run) }), 1);
  t.is(slices.length, 0, 'no build queued');
  const probe = (words: readonly string[]) => {
    for (const word of words) {
      for (const budget of [1, 2]) {
        const [a, b] = index().map((one) => one!.candidates(word, budget));
        t.deepEqual(b === null ? null : { depth: b.depth, words: [...b.words], nodes: [...b.nodes], nodeCount: b.nodeCount },
          a === null ? null : { depth: a.depth, words: [...a.words], nodes: [...a.nodes], nodeCount: a.nodeCount }, `${word} at ${budget}`);
      }
    }
  };
  const random = randomFrom(9702);
  const letters = [...'abcdefghilmnorstuvwzq0123456789'];
  const words = [...PARTS, ...late];
  probe(words.map((word) => mutate(random, letters, word, Math.floor(random() * 3))));
  // Answers: as a twin restored from the same file walking every word of the first letter, and as the
  // original, whose lexicon holds the late words in a second list (the typo caps are the one merged list's).
  const plain = again();
  plain.deletionIndex = false;
  t.is(answers(restored), answers(plain));
  t.is(answers(original), answers(restored));
  // More words, in all three: the restored index's tables take them as the original's do.
  for (let k = 0; k < 80; k++) {
    const document = { id: 4000 + k, title: `${text(2)} zx${k}later`, body: text(4) };
    for (const shard of [original, restored, plain]) shard.upsert(4000 + k, document);
  }
  for (const shard of [original, restored, plain]) shard.flushWrites();
  t.truthy(index()[1], 'still kept');
  probe([...words, ...Array.from({ length: 80 }, (_, k) => `zx${k}later`)].map((word) => mutate(random, letters, word, Math.floor(random() * 3))));
  t.is(answers(restored), answers(plain));
});
