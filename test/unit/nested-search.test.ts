// Searches answered at another search's yield points (worker.ts NestedBatches) run on the same thread
// in the middle of it: whatever the thread reuses from one search to the next (the ranking rules of
// reusableRulesFor, the score chain's run ids...) must not be shared between the two. Under load, a
// search whose words rule yielded mid-bucket to a nested search came back with the nested search's
// state (0 hits: seen in CI as a gzip test's search answering 0 hits beside load tests).
import test from 'ava';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ShardIndex } from '../../src/shard/shard-index.js';
import { compileIndexConfig } from '../../src/shard/index-config.js';
import { SearchBudget } from '../../src/shard/search/search-budget.js';
import type { MatchingStrategyName } from '../../src/protocol/messages.js';

const fixture = fileURLToPath(new URL('../../../test/http/fixtures/npm-packages.tsv', import.meta.url));

function npmShard(): ShardIndex {
  const shard = new ShardIndex(compileIndexConfig(null));
  const lines = readFileSync(fixture, 'utf8').split('\n').slice(1).filter(Boolean);
  lines.forEach((line, id) => {
    const [name, , , summary] = line.split('\t');
    shard.upsert(id, { id, name, summary: summary ?? '' });
  });
  shard.flushWrites();
  shard.prepareForSearch();
  return shard;
}

const QUERIES = ['react component', 'react', 'vue plugin for', 'reat', 'webpack loader', 'the', 'javascript library',
  'node module for parsing', 'expres', 'typescript types', 'cli tool', 'rea', 'react native comp', 'a simple', 'utils'];

type Hits = { docId: number; score: number[] }[];

function plain(shard: ShardIndex, q: string, strategy: MatchingStrategyName): Hits {
  return shard.search({ q, hitsWanted: 20, matchingStrategy: strategy, budget: SearchBudget.unbounded() }).hits
    .map(({ docId, score }) => ({ docId, score: [...score] }));
}

/** The search with another search run at each of its yield points (a slice of 0 ms), `deadline` as given. */
function interrupted(shard: ShardIndex, q: string, strategy: MatchingStrategyName, deadline: number, other: string): { hits: Hits; nested: number } {
  let nested = 0;
  let depth = 0;
  const interleave = () => {
    if (depth > 0) return;
    depth++;
    try {
      nested++;
      shard.search({ q: other, hitsWanted: 20, matchingStrategy: strategy, budget: new SearchBudget(Infinity) });
    } finally {
      depth--;
    }
  };
  const hits = shard.search({ q, hitsWanted: 20, matchingStrategy: strategy, budget: new SearchBudget(deadline, interleave, 0) }).hits
    .map(({ docId, score }) => ({ docId, score: [...score] }));
  return { hits, nested };
}

test('a search with other searches run at its yield points answers as it does alone', (t) => {
  const shard = npmShard();
  let nested = 0;
  for (const strategy of ['last', 'all'] as const) {
    for (const [k, q] of QUERIES.entries()) {
      const expected = plain(shard, q, strategy);
      const other = QUERIES[(k + 5) % QUERIES.length]!;
      const actual = interrupted(shard, q, strategy, Infinity, other);
      nested += actual.nested;
      t.deepEqual(actual.hits, expected, `${q} (${strategy}) interrupted by ${other}`);
    }
  }
  t.true(nested > 50, `only ${nested} nested searches`);
});

test('a degraded search (past its deadline) interrupted by other searches still returns the hits it found', (t) => {
  const shard = npmShard();
  for (const [k, q] of QUERIES.entries()) {
    const matching = shard.search({ q, hitsWanted: 20, matchingStrategy: 'last', budget: SearchBudget.unbounded() }).candidates;
    const actual = interrupted(shard, q, 'last', Date.now() - 1, QUERIES[(k + 3) % QUERIES.length]!);
    t.is(actual.hits.length, Math.min(20, matching), `${q}: a degraded answer keeps its hits`);
  }
});
