// The derived structures of a shard written by random batches, as the worker goes (write batches with
// yield points, pre-commit builds when a batch left the queue empty, rebuilds in slices, lists kept in
// place while deferred or dropped), against a shard built at once from the final documents: every
// word's rank and position lists, and the answers (near-pair tables, sole-word fields, field-start pairs).
import test from 'ava';
import { ShardEngine } from '../../src/shard/shard-engine.js';
import { SlicedJobs } from '../../src/shard/sliced-jobs.js';
import type { ShardIndex } from '../../src/shard/shard-index.js';
import type { TokenKeyPostings } from '../../src/shard/postings/token-key-postings.js';
import { randomFrom } from './seeded-lcg.js';
import { makeDocument, sameAnswers } from './shard-twins.js';

function sameLists(t: import('ava').ExecutionContext, label: string, subject: ShardIndex, reference: ShardIndex,
  listsOf: (shard: ShardIndex) => TokenKeyPostings): void {
  let compared = 0;
  for (let wordId = 0; wordId < reference.vocabulary.size; wordId++) {
    if (reference.vocabulary.docs(wordId).isEmpty) continue;
    const word = reference.vocabulary.wordOf(wordId);
    const subjectId = subject.vocabulary.idOf(word);
    const expected = listsOf(reference).unionByKey([wordId]).map((docs) => docs.toArray());
    const actual = subjectId === undefined ? [] : listsOf(subject).unionByKey([subjectId]).map((docs) => docs.toArray());
    while (actual.length > 0 && actual[actual.length - 1]!.length === 0) actual.pop();
    while (expected.length > 0 && expected[expected.length - 1]!.length === 0) expected.pop();
    if (JSON.stringify(actual) !== JSON.stringify(expected)) {
      t.deepEqual(actual, expected, `${label}: ${word}`);
      return;
    }
    compared++;
  }
  t.true(compared > 0, label);
}

for (const seed of [1, 2, 3, 4, 5, 6]) {
  test(`random write batches with builds between them leave every structure as a build at once would (seed ${seed})`, async (t) => {
    const random = randomFrom(100 + seed);
    const engine = new ShardEngine(0, 1);
    engine.loadIndex('books', 1, null, []);
    const documents = new Map<number, Record<string, unknown>>();
    let number = 0;
    let idSpan = 500;
    for (let batch = 0; batch < 10; batch++) {
      // Mostly appends (a bulk load), some rewrites and deletions of earlier documents.
      const size = 100 + Math.floor(random() * 1500);
      const ops = Array.from({ length: size }, () => {
        const docId = random() < 0.75 ? idSpan++ : Math.floor(random() * idSpan);
        if (random() < 0.05) {
          documents.delete(docId);
          return { kind: 'delete' as const, docId };
        }
        const document = makeDocument(random, number++);
        documents.set(docId, document);
        return { kind: 'upsert' as const, docId, document: JSON.stringify(document) };
      });
      engine.writeBatch('books', 0, ops, () => {}, { sliceMs: 0, fairShare: false });
      const roll = random();
      const jobs = new SlicedJobs({ schedule: () => {} });
      // The queue emptied: built before the commit (PrepareSearch).
      if (roll < 0.3) {
        const built = engine.prepareIndexBeforeCommit('books', jobs);
        jobs.drainSync();
        await built;
      } else if (roll < 0.45) {
        // A light query batch: what is stale starts building in slices, and stops halfway.
        engine.prepareStaleShards(jobs, 1);
        for (let k = 0; k < 3; k++) (jobs as unknown as { step(deadline: number): void }).step(0);
        jobs.cancelAll();
      }
    }
    const jobs = new SlicedJobs({ schedule: () => {} });
    const built = engine.prepareIndexBeforeCommit('books', jobs);
    jobs.drainSync();
    await built;
    const subject = [...engine.allShards()][0]!;
    t.false(subject.needsPreparing);
    const reference = new ShardEngine(0, 1);
    reference.loadIndex('books', 1, null, [...documents].sort((a, b) => a[0] - b[0]));
    reference.prepareForSearch();
    const fresh = [...reference.allShards()][0]!;
    t.is(subject.documentCount, fresh.documentCount);
    sameLists(t, 'rank', subject, fresh, (shard) => shard.rankPostings);
    sameLists(t, 'position', subject, fresh, (shard) => shard.positionPostings);
    sameAnswers(t, subject, fresh, randomFrom(200 + seed), 30);
  });
}
