// The rank / position lists a search rebuilds after writes (TokenKeyPostings.buildMissing) are kept for the
// rare words too (ShardIndex.keepRareKeyLists: words in < 8 documents were read again by every search
// until the next full build), and a later write to one of its words must drop a kept list again. Random
// writes (appends, rewrites, deletions) interleaved with reads of random sets of words, rare ones mostly,
// against an index built at once from the same documents.
import test from 'ava';
import { ShardIndex } from '../../src/shard/shard-index.js';
import { compileIndexConfig } from '../../src/shard/index-config.js';
import { randomFrom } from './seeded-lcg.js';
import { makeDocument } from './shard-twins.js';

function listsByWord(shard: ShardIndex, words: readonly string[], rank: boolean): number[][] {
  const ids = words.map((word) => shard.vocabulary.idOf(word)).filter((id): id is number => id !== undefined && !shard.vocabulary.docs(id).isEmpty);
  const lists = (rank ? shard.rankPostings : shard.positionPostings).unionByKey(ids).map((docs) => docs.toArray());
  while (lists.length > 0 && lists[lists.length - 1]!.length === 0) lists.pop();
  return lists;
}

for (let round = 0; round < 4; round++) {
  test(`rare words' rebuilt rank / position lists, kept, follow later writes (round ${round})`, (t) => {
    const random = randomFrom(1300 + round);
    const documents = new Map<number, Record<string, unknown>>();
    const subject = new ShardIndex(compileIndexConfig({}));
    subject.keepRareKeyLists = round < 3;
    t.is(new ShardIndex(compileIndexConfig({})).keepRareKeyLists, true, 'on by default');
    // Many rare words (r0..r399), each in a few documents.
    for (let docId = 0; docId < 300; docId++) {
      const document = makeDocument(random, docId, 400);
      documents.set(docId, document);
      subject.upsert(docId, document);
    }
    subject.flushWrites();
    subject.prepareForSearch();
    let nextId = 300;
    let compared = 0;
    for (let step = 0; step < 40; step++) {
      for (let k = 0, writes = 1 + Math.floor(random() * 4); k < writes; k++) {
        const roll = random();
        const docId = roll < 0.4 ? nextId++ : Math.floor(random() * nextId);
        if (roll > 0.8) {
          subject.delete(docId);
          documents.delete(docId);
        } else {
          const document = makeDocument(random, docId, 400);
          documents.set(docId, document);
          subject.upsert(docId, document);
        }
      }
      subject.flushWrites();
      const reference = new ShardIndex(compileIndexConfig({}));
      for (const docId of [...documents.keys()].sort((a, b) => a - b)) reference.upsert(docId, documents.get(docId)!);
      reference.flushWrites();
      reference.prepareForSearch();
      for (let read = 0; read < 12; read++) {
        const words = Array.from({ length: 1 + Math.floor(random() * 5) }, () => `r${Math.floor(random() * 400)}`);
        if (random() < 0.2) words.push('star');
        const rank = random() < 0.5;
        t.deepEqual(listsByWord(subject, words, rank), listsByWord(reference, words, rank), `step ${step} ${words.join(' ')} ${rank ? 'rank' : 'position'}`);
        compared++;
      }
    }
    t.is(compared, 480);
  });
}
