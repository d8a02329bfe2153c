// The score chain's shortcuts (score-chain.ts): a universe every rule scores alike is one group cut
// to the documents still needed, lazy parts are taken only as far as the hits wanted, and a rule's
// readDirectlyMax keeps small universes from being split.
import test from 'ava';
import roaring from 'roaring';
import { READ_BY_CLASS_MIN, scoreChainGroups } from '../../src/ranking/scores/score-chain.js';
import type { RankingRule } from '../../src/ranking/ranking-rule.js';
import type { OrderedPart } from '../../src/ranking/scores/score-layers.js';
import { CANNOT_TELL, type SearchContext } from '../../src/ranking/search-context.js';
import { emptyProfile } from '../../src/ranking/match-profile.js';

const { RoaringBitmap32 } = roaring;

function contextReading(onRead: (docId: number) => void): SearchContext {
  const profile = emptyProfile(1);
  return {
    terms: [{ kind: 'word', word: 'w', isPrefix: false, position: 0 } as never],
    deadline: Number.MAX_SAFE_INTEGER,
    termDocs: () => new RoaringBitmap32(),
    termDocsByTypo: () => [],
    profile: (docId) => {
      onRead(docId);
      profile.docId = docId;
      return profile;
    },
    fieldWordCount: () => 0,
  };
}

function range(from: number, to: number): roaring.RoaringBitmap32 {
  const bitmap = new RoaringBitmap32();
  bitmap.addRange(from, to);
  return bitmap;
}

/** A rule scoring docId % 7, whose parts (by the tens digit of the id) are counted as they are taken. */
function countingRule(parts: OrderedPart[], pulled: { count: number; calls: number }, readDirectlyMax?: number): RankingRule {
  return {
    name: 'counting',
    start: () => {},
    nextBucket: () => null,
    end: () => {},
    scoreDocument: (_ctx, profile) => profile.docId % 7,
    constantScore: () => null,
    orderedParts: function* () {
      pulled.calls++;
      for (const part of parts) {
        pulled.count++;
        yield part;
      }
    },
    ...(readDirectlyMax === undefined ? {} : { readDirectlyMax }),
  };
}

function constantRule(score: number): RankingRule {
  return { name: `constant${score}`, start: () => {}, nextBucket: () => null, end: () => {}, scoreDocument: () => score, constantScore: () => score };
}

test('a universe every rule scores alike is one group of the first documents still needed, read from nowhere', (t) => {
  const ctx = contextReading(() => t.fail('no document is read'));
  const universe = range(100, 5000);
  const [group, ...others] = [...scoreChainGroups(ctx, [constantRule(3), constantRule(1)], universe, [0], 20)];
  t.deepEqual(others, []);
  t.deepEqual(group!.scores, [3, 1]);
  t.deepEqual([...group!.docIds], Array.from({ length: 20 }, (_, k) => 100 + k));
  // Not cut when every document may be needed (the next rules split the whole group), and a copy.
  const [whole] = [...scoreChainGroups(ctx, [constantRule(3)], universe, [0], Infinity)];
  t.is(whole!.docIds.length, universe.size);
  const bitmap = whole!.bitmap();
  t.not(bitmap, universe);
  t.true(bitmap.isEqual(universe));
  t.deepEqual([...scoreChainGroups(ctx, [constantRule(3)], new RoaringBitmap32(), [0], 20)], []);
});

test('lazy parts are taken only until they hold the documents needed, and give the same groups', (t) => {
  const parts: OrderedPart[] = [
    { docs: range(0, 100), score: 0 },
    { docs: range(100, 200), score: 1 },
    { docs: range(200, 400), score: null },
  ];
  const universe = range(0, 400);
  const read: number[] = [];
  const ctx = contextReading((docId) => read.push(docId));
  const pulled = { count: 0, calls: 0 };
  const groups = [...scoreChainGroups(ctx, [countingRule(parts, pulled)], universe, [0], 30)];
  t.is(pulled.count, 1, 'the second part is never worked out');
  // Part 0's documents, scored by the part's constant score: one group, its first 30 ids.
  t.deepEqual(groups.map((group) => [group.scores, [...group.docIds]]), [[[0], Array.from({ length: 30 }, (_, k) => k)]]);
  t.deepEqual(read, []);
  // Needing more takes the next part, then reads the part of unknown score.
  const more = { count: 0, calls: 0 };
  const all = [...scoreChainGroups(ctx, [countingRule(parts, more)], universe, [0], 250)];
  t.is(more.count, 3);
  t.deepEqual(all.slice(0, 2).map((group) => [group.scores, group.docIds.length]), [[[0], 100], [[1], 100]]);
  t.deepEqual(all.slice(2).map((group) => group.scores[0]), [0, 1]);
  t.deepEqual([...all[2]!.docIds].slice(0, 3), [203, 210, 217]);
  t.is(read.length, 200, 'the part of unknown score is read whole');
});

test('one lazy part of unknown score splits nothing; a rule\'s readDirectlyMax keeps its universe whole', (t) => {
  const universe = range(0, 300);
  let reads = 0;
  const ctx = contextReading(() => reads++);
  const alone = { count: 0, calls: 0 };
  const groups = [...scoreChainGroups(ctx, [countingRule([{ docs: universe, score: null }], alone)], universe, [0], 5)];
  t.is(alone.calls, 1);
  t.is(reads, 300);
  t.deepEqual(groups.map((group) => [group.scores[0], [...group.docIds]]), [[0, [0, 7, 14, 21, 28]]]);
  const small = { count: 0, calls: 0 };
  reads = 0;
  [...scoreChainGroups(ctx, [countingRule([{ docs: universe, score: 0 }], small, 300)], universe, [0], 5)];
  t.is(small.calls, 0, 'not split: read directly');
  t.is(reads, 300);
  const large = { count: 0, calls: 0 };
  [...scoreChainGroups(ctx, [countingRule([{ docs: universe, score: 0 }], large, 299)], universe, [0], 5)];
  t.is(large.calls, 1);
});

test('documents read in a run: the best `needed` by score vector then id, as sorting every document', (t) => {
  let state = 17;
  const random = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
  for (let round = 0; round < 300; round++) {
    const size = 1 + Math.floor(random() * 60);
    const docIds = [...new Set(Array.from({ length: size }, () => Math.floor(random() * 1000)))].sort((a, b) => a - b);
    const universe = new RoaringBitmap32(docIds);
    const width = 1 + Math.floor(random() * 3);
    const spread = 1 + Math.floor(random() * 6);
    const table = new Map(docIds.map((docId) => [docId, Array.from({ length: width }, () => Math.floor(random() * spread))]));
    let scoredLater = 0;
    const rules: RankingRule[] = Array.from({ length: width }, (_, r) => ({
      name: `r${r}`,
      start: () => {},
      nextBucket: () => null,
      end: () => {},
      scoreDocument: (_ctx, profile) => {
        if (r > 0) scoredLater++;
        return table.get(profile.docId)![r]!;
      },
      constantScore: () => null,
    }));
    // A constant rule before them must not change who leads.
    if (random() < 0.3) rules.unshift(constantRule(5));
    const needed = 1 + Math.floor(random() * (size + 5));
    const groups = [...scoreChainGroups(contextReading(() => {}), rules, universe, [0], needed)];
    const prefix = rules.length > width ? [5] : [];
    const expected = docIds.map((docId) => ({ docId, score: [...prefix, ...table.get(docId)!] }))
      .sort((a, b) => a.score.map((value, k) => value - b.score[k]!).find((difference) => difference !== 0) ?? a.docId - b.docId)
      .slice(0, needed);
    const got = groups.flatMap((group) => [...group.docIds].map((docId) => ({ docId, score: group.scores })));
    t.deepEqual(got, expected, `round ${round}`);
    if (needed < docIds.length / 4 && width > 1 && spread > 3) t.true(scoredLater < docIds.length * (width - 1), `round ${round}: later rules skip some documents`);
  }
});

test('while the postings wait for a rebuild, universes up to 256 documents are read rather than split', (t) => {
  const universe = range(0, 200);
  for (const stale of [true, false]) {
    const ctx: SearchContext = { ...contextReading(() => {}), accelerator: { ...CANNOT_TELL, postingsStale: () => stale } };
    const pulled = { count: 0, calls: 0 };
    [...scoreChainGroups(ctx, [countingRule([{ docs: universe, score: 0 }], pulled)], universe, [0], 5)];
    t.is(pulled.calls, stale ? 0 : 1, `stale: ${stale}`);
  }
});

test('a part of unknown score with lower-bound classes: read class by class, stopping where no class can reach the best', (t) => {
  let state = 29;
  const random = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
  let skippedRounds = 0;
  for (let round = 0; round < 200; round++) {
    const size = READ_BY_CLASS_MIN + Math.floor(random() * 300);
    const docIds = [...new Set(Array.from({ length: size }, () => Math.floor(random() * 5000)))].sort((a, b) => a - b);
    const universe = new RoaringBitmap32(docIds);
    const lead = new Map(docIds.map((docId) => [docId, Math.floor(random() * 30)]));
    const second = new Map(docIds.map((docId) => [docId, Math.floor(random() * 2)]));
    // Classes by a lower bound of the lead score (the score itself, or up to 2 less), in an order unrelated to ids.
    const classOf = (docId: number) => lead.get(docId)! - Math.floor(random() * 3);
    const classes = new Map<number, number[]>();
    // The documents of lead score 0 are a part of known score, the others the part read by class.
    const first = new RoaringBitmap32(docIds.filter((docId) => lead.get(docId) === 0));
    const others = docIds.filter((docId) => lead.get(docId) !== 0);
    for (const docId of others) {
      const bound = Math.max(0, classOf(docId));
      classes.set(bound, [...(classes.get(bound) ?? []), docId]);
    }
    const read: number[] = [];
    const ctx = contextReading((docId) => read.push(docId));
    const rules: RankingRule[] = [
      {
        name: 'bounded',
        start: () => {},
        nextBucket: () => null,
        end: () => {},
        scoreDocument: (_ctx, profile) => lead.get(profile.docId)!,
        constantScore: () => null,
        orderedParts: () => [...(first.isEmpty ? [] : [{ docs: first, score: 0 }]), { docs: new RoaringBitmap32(others), score: null,
          lowerBounds: () => [...classes].sort((a, b) => a[0] - b[0]).map(([atLeast, ids]) => ({ docIds: Uint32Array.from(ids).sort(), atLeast })) }],
      },
      { name: 'second', start: () => {}, nextBucket: () => null, end: () => {}, scoreDocument: (_ctx, profile) => second.get(profile.docId)!, constantScore: () => null },
    ];
    const needed = 1 + Math.floor(random() * docIds.length / 4);
    const got = [...scoreChainGroups(ctx, rules, universe, [0], needed)].flatMap((group) => [...group.docIds].map((docId) => ({ docId, score: group.scores })));
    const expected = docIds.map((docId) => ({ docId, score: [lead.get(docId)!, second.get(docId)!] }))
      .sort((a, b) => a.score[0]! - b.score[0]! || a.score[1]! - b.score[1]! || a.docId - b.docId)
      .slice(0, needed);
    t.deepEqual(got, expected, `round ${round}`);
    if (new Set(read).size < docIds.length) skippedRounds++;
  }
  t.true(skippedRounds > 100, 'classes past the bound are never read');
});
