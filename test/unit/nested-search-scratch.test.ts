// A search's yield points (SearchBudget.yieldPoint, SearchContext.deadline) run the searches waiting for
// the worker nested on its stack (worker.ts). Whatever scratch the outer search holds at that point
// (run ids, score keys, bounds by document, match profile lookups, bitmaps) must not be the nested
// search's: here every yield point runs another search, and every answer must equal the one given
// without nesting. (Seen through HTTP: bench/answers-md5.ts answered cold searches differently at
// 8 concurrent connections than one at a time.)
import test from 'ava';
import { SearchBudget } from '../../src/shard/search/search-budget.js';
import { randomFrom } from './seeded-lcg.js';
import { makeQuery, twins } from './shard-twins.js';
import type { ShardIndex } from '../../src/shard/shard-index.js';

function answer(shard: ShardIndex, q: string, hitsWanted: number, matchingStrategy: 'last' | 'all', budget?: SearchBudget) {
  const result = shard.search({ q, hitsWanted, matchingStrategy, budget });
  return { hits: result.hits, candidates: result.candidates };
}

test('searches run nested at every yield point of another search answer as when run alone, and so does the outer one', (t) => {
  const { subject, reference } = twins(3_000, 26);
  const random = randomFrom(2026);
  const queries = Array.from({ length: 120 }, () => ({
    q: makeQuery(random), hitsWanted: random() < 0.3 ? 300 : 1 + Math.floor(random() * 30),
    matchingStrategy: random() < 0.7 ? 'last' as const : 'all' as const,
  }));
  const expected = queries.map(({ q, hitsWanted, matchingStrategy }) => answer(reference, q, hitsWanted, matchingStrategy));
  let nestedRuns = 0;
  let depth = 0;
  for (let k = 0; k < queries.length; k++) {
    let next = k + 1;
    // sliceMs 0: every yield point runs the interleave (one nested search each time, at most 3 deep).
    const interleave = () => {
      if (depth >= 3) return;
      depth++;
      try {
        const at = next++ % queries.length;
        const { q, hitsWanted, matchingStrategy } = queries[at]!;
        const inner = new SearchBudget(Infinity, interleave, 0);
        t.deepEqual(answer(subject, q, hitsWanted, matchingStrategy, inner), expected[at], `nested q=${JSON.stringify(q)}`);
        nestedRuns++;
      } finally {
        depth--;
      }
    };
    const { q, hitsWanted, matchingStrategy } = queries[k]!;
    t.deepEqual(answer(subject, q, hitsWanted, matchingStrategy, new SearchBudget(Infinity, interleave, 0)), expected[k], `outer q=${JSON.stringify(q)}`);
  }
  t.true(nestedRuns > 200, `searches ran nested (${nestedRuns})`);
});
