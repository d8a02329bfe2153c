// Shards under test beside a reference twin holding the same documents (test/unit/sliced-builds.test.ts,
// deferred-builds.test.ts): random documents and queries over a small vocabulary with rare words, and
// the check that a shard answers every query exactly as its twin.
import type { ExecutionContext } from 'ava';
import { ShardIndex } from '../../src/shard/shard-index.js';
import { compileIndexConfig } from '../../src/shard/index-config.js';
import { SLICE_POLICY } from '../../src/shard/sliced-jobs.js';
import { randomFrom } from './seeded-lcg.js';

export const WORDS = ['star', 'wars', 'return', 'of', 'the', 'jedi', 'empire', 'strikes', 'back', 'new', 'hope', 'galaxy', 'far', 'away', 'dark', 'side'];

export function makeDocument(random: () => number, id: number, rareWords = 60): Record<string, unknown> {
  const word = () => (random() < 0.2 ? `r${Math.floor(random() * rareWords)}` : WORDS[Math.floor(WORDS.length * random() ** 2)]!);
  const text = (max: number) => Array.from({ length: 1 + Math.floor(random() * max) }, word).join(' ');
  return { id, title: text(4), body: random() < 0.2 ? text(40) : text(8), tags: [text(2), text(1)] };
}

export function makeQuery(random: () => number): string {
  const word = () => (random() < 0.25 ? `r${Math.floor(random() * 60)}` : WORDS[Math.floor(random() * WORDS.length)]!);
  const words = Array.from({ length: 1 + Math.floor(random() * 3) }, word);
  const roll = random();
  if (roll < 0.3) words[words.length - 1] = words[words.length - 1]!.slice(0, 1 + Math.floor(random() * 2));
  else if (roll < 0.4) words[0] = `${words[0]!.slice(0, 2)}x${words[0]!.slice(3)}`;
  return words.join(' ');
}

/** Two shards with the same documents: `subject` under test, `reference` building everything at once. */
export function twins(count: number, seed: number, rareWords = 60): { subject: ShardIndex; reference: ShardIndex } {
  const random = randomFrom(seed);
  const subject = new ShardIndex(compileIndexConfig({}));
  const reference = new ShardIndex(compileIndexConfig({}));
  for (let docId = 0; docId < count; docId++) {
    const document = makeDocument(random, docId, rareWords);
    subject.upsert(docId, document);
    reference.upsert(docId, document);
  }
  subject.flushWrites();
  reference.flushWrites();
  return { subject, reference };
}

export function sameAnswers(t: ExecutionContext, subject: ShardIndex, reference: ShardIndex, random: () => number, queries = 40): void {
  for (let k = 0; k < queries; k++) {
    const q = makeQuery(random);
    const hitsWanted = random() < 0.3 ? 300 : 1 + Math.floor(random() * 30);
    const matchingStrategy = random() < 0.7 ? 'last' as const : 'all' as const;
    const expected = reference.search({ q, hitsWanted, matchingStrategy });
    const actual = subject.search({ q, hitsWanted, matchingStrategy });
    t.deepEqual(actual.hits, expected.hits, `q=${JSON.stringify(q)}`);
    t.is(actual.candidates, expected.candidates);
  }
}

export function withSmallSteps(run: (t: ExecutionContext) => void): (t: ExecutionContext) => void {
  return (t) => {
    const saved = SLICE_POLICY.documentsPerStep;
    SLICE_POLICY.documentsPerStep = 16;
    try {
      run(t);
    } finally {
      SLICE_POLICY.documentsPerStep = saved;
    }
  };
}

/**
 * `count` writes to every shard alike, then flushed: ids drawn below `idSpan` (rewrites of existing
 * documents and new ones), every `deleteEvery`-th a deletion; documents numbered from `firstNumber`.
 */
export function rewriteAll(shards: readonly ShardIndex[], random: () => number, count: number, idSpan: number, firstNumber: number,
  deleteEvery: number): void {
  for (let k = 0; k < count; k++) {
    const docId = Math.floor(random() * idSpan);
    const document = makeDocument(random, firstNumber + k);
    for (const shard of shards) {
      if (k % deleteEvery === 0) shard.delete(docId);
      else shard.upsert(docId, document);
    }
  }
  for (const shard of shards) shard.flushWrites();
}
