// milli's split words (split_best_frequency) over an index of several shards: the split of a query
// word into two words is the one whose pair in a row holds the most documents of the WHOLE index
// (the first on a tie), on every shard alike, so N shards answer as one (issue 22).
import test from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, startTestServer, type TestServer } from './harness.js';
import { shardOf } from '../../src/documents/doc-ids.js';

/** 2 workers, 3 shards (worker 0 holds shards 0 and 2, worker 1 shard 1): the front sums the workers' counts. */
let spread: TestServer;
/** 1 worker holding all 3 shards: the worker sums its shards' counts. */
let together: TestServer;
/** The reference: one shard. */
let single: TestServer;

test.before(async () => {
  [spread, together, single] = await Promise.all([
    startTestServer({ workers: 2, shardsPerIndex: 3, enableMetrics: true }),
    startTestServer({ workers: 1, shardsPerIndex: 3, enableMetrics: true }),
    startTestServer({ workers: 1, shardsPerIndex: 1, enableMetrics: true }),
  ]);
});
test.after.always(async () => {
  await Promise.all([spread?.close(), together?.close(), single?.close()]);
});

const servers = () => [['spread', spread], ['together', together], ['single', single]] as const;

async function load(index: string, documents: object[], settings: object = {}): Promise<void> {
  await Promise.all(servers().map(async ([, server]) => {
    if (Object.keys(settings).length > 0) await server.client.run('PATCH', `/indexes/${index}/settings`, { body: settings });
    await server.client.run('POST', `/indexes/${index}/documents`, { body: documents });
  }));
}

async function hits(server: TestServer, index: string, q: string, limit = 20): Promise<{ ids: string[]; scores: number[]; total: number }> {
  const response = await server.client.post(`/indexes/${index}/search`, { q, limit, showRankingScore: true });
  if (response.status !== 200) throw new Error(`q=${q}: ${response.status} ${response.text}`);
  return {
    ids: response.body.hits.map((hit: { id: string }) => hit.id),
    scores: response.body.hits.map((hit: { _rankingScore: number }) => hit._rankingScore),
    total: response.body.estimatedTotalHits,
  };
}

/** `count` ids that fnv1a places in `shard` of 3, named from `prefix`. */
function idsInShard(prefix: string, shard: number, count: number): string[] {
  const out: string[] = [];
  for (let n = 0; out.length < count; n++) if (shardOf(`${prefix}${n}`, 3) === shard) out.push(`${prefix}${n}`);
  return out;
}

test('the best split of a query word is the one of the whole index, not of each shard (hits and order as one shard)', async (t) => {
  // `carpet`: `car pet` in a row in 4 documents (shards 0 and 2), `carp et` in 3 (all in shard 1),
  // so shard 1 alone would take `carp et`, and the index takes `car pet`.
  const documents = [
    ...idsInShard('x-a', 0, 2).map((id, n) => ({ id, text: `the car pet number ${n}` })),
    ...idsInShard('x-b', 2, 2).map((id, n) => ({ id, text: `a car pet shop ${n}` })),
    ...idsInShard('x-c', 1, 3).map((id, n) => ({ id, text: `carp et al ${n}` })),
    // Both halves of each split, apart: no occurrence of either.
    ...idsInShard('x-d', 1, 1).map((id) => ({ id, text: 'pet of the car, et the carp' })),
    ...idsInShard('x-e', 0, 1).map((id) => ({ id, text: 'a carpet' })),
  ];
  await load('split_carpet', documents);
  const expected = await hits(single, 'split_carpet', 'carpet');
  const carPet = documents.filter((document) => document.text.includes('car pet')).map((document) => document.id);
  const carpet = idsInShard('x-e', 0, 1)[0]!;
  t.deepEqual(expected.ids.slice().sort(), [...carPet, carpet].sort(), 'one shard: `carpet` itself and `car pet` in a row');
  t.is(expected.ids[0], carpet);
  for (const [name, server] of servers()) {
    const answer = await hits(server, 'split_carpet', 'carpet');
    t.deepEqual(answer, expected, name);
    // The same word in a query of several words, and as the last word (a prefix).
    for (const q of ['the carpet', 'carpet shop', 'carpet ']) t.deepEqual(await hits(server, 'split_carpet', q), await hits(single, 'split_carpet', q), `${name} q=${q}`);
  }
});

test('a tie takes the first split point, on every shard', async (t) => {
  // `bookend`: `book end` (at 4) and `boo kend` (at 3), 2 documents each, in different shards.
  const documents = [
    ...idsInShard('tie-a', 0, 1).map((id) => ({ id, text: 'a book end here' })),
    ...idsInShard('tie-b', 1, 1).map((id) => ({ id, text: 'book end there' })),
    ...idsInShard('tie-c', 2, 2).map((id, n) => ({ id, text: `boo kend ${n}` })),
  ];
  await load('split_tie', documents);
  const expected = await hits(single, 'split_tie', 'bookend');
  t.deepEqual(expected.ids.slice().sort(), idsInShard('tie-c', 2, 2).sort(), 'one shard: `boo kend`, the first point of the tie');
  for (const [name, server] of servers()) t.deepEqual(await hits(server, 'split_tie', 'bookend'), expected, name);
});

test('hostile words: names of object properties (constructor, tostring, __proto__) split as any other', async (t) => {
  const documents = [
    ...idsInShard('h-a', 0, 3).map((id, n) => ({ id, text: `construct or ${n}; to string` })),
    ...idsInShard('h-b', 1, 3).map((id, n) => ({ id, text: `con structor ${n}; tos tring; proto __ __proto__` })),
    ...idsInShard('h-c', 2, 1).map((id) => ({ id, text: 'construct or; to string; __ proto' })),
  ];
  await load('split_hostile', documents);
  for (const q of ['constructor', 'tostring', '__proto__', 'proto__', 'constructor tostring', 'hasownproperty']) {
    const expected = await hits(single, 'split_hostile', q);
    for (const [name, server] of servers()) t.deepEqual(await hits(server, 'split_hostile', q), expected, `${name} q=${q}`);
  }
  t.true((await hits(single, 'split_hostile', 'constructor')).ids.every((id) => !id.startsWith('h-b')), 'one shard: `construct or` (4 against 3), which shard 1 alone would not take');
});

test('after a write the split follows the index (no choice kept from before)', async (t) => {
  const first = [
    ...idsInShard('w-a', 0, 2).map((id, n) => ({ id, text: `sea horse ${n}` })),
    ...idsInShard('w-b', 1, 1).map((id) => ({ id, text: 'seah orse' })),
  ];
  await load('split_write', first);
  for (const [name, server] of servers()) t.deepEqual(await hits(server, 'split_write', 'seahorse'), await hits(single, 'split_write', 'seahorse'), `${name} before`);
  // Now `seah orse` leads index-wide (4 against 2).
  await load('split_write', idsInShard('w-c', 2, 3).map((id, n) => ({ id, text: `seah orse ${n}` })));
  const expected = await hits(single, 'split_write', 'seahorse');
  t.true(expected.ids.every((id) => !id.startsWith('w-a')), 'one shard: `seah orse` now');
  for (const [name, server] of servers()) t.deepEqual(await hits(server, 'split_write', 'seahorse'), expected, `${name} after`);
});

/** Searches the front has sent to shard workers so far (GET /metrics: the query batches' sizes summed). */
async function searchesSent(server: TestServer): Promise<number> {
  const text = (await server.client.get('/metrics')).text;
  return Number(text.match(/^skein_query_batch_size_sum(?:\{\})? (\S+)$/m)?.[1] ?? NaN);
}

test.serial('rounds: a word with a split candidate costs the spread index one more round once per word until the index changes; others and one worker never', async (t) => {
  const documents = [
    ...idsInShard('r-a', 0, 2).map((id, n) => ({ id, text: `rain bow number ${n}` })),
    ...idsInShard('r-b', 1, 1).map((id) => ({ id, text: 'rainb ow' })),
    ...idsInShard('r-c', 2, 1).map((id) => ({ id, text: 'plain words only; sun flower' })),
  ];
  await load('split_rounds', documents);
  // Rounds for one search: the workers it was sent to each time (3 shards on 2 workers: 2 a round).
  const rounds = async (server: TestServer, q: string, workers: number) => {
    const before = await searchesSent(server);
    await hits(server, 'split_rounds', q);
    return ((await searchesSent(server)) - before) / workers;
  };
  t.is(await rounds(spread, 'plain words', 2), 1, 'no split candidate: one round');
  t.is(await rounds(spread, 'rainbow', 2), 2, 'a candidate: the counts, then the search');
  t.is(await rounds(spread, 'rainbow', 2), 1, 'the same query again: the choice kept');
  t.is(await rounds(spread, 'plain rainbow', 2), 1, 'another query of that word: its choice kept');
  t.is(await rounds(spread, 'RAINBÓW!', 2), 1, 'written otherwise, the same word');
  t.is(await rounds(spread, 'rainbow sunflower', 2), 2, 'a word not counted yet: counted');
  t.is(await rounds(spread, 'sunflower', 2), 1);
  for (const server of [together, single]) {
    for (const q of ['plain words', 'rainbow', 'rainbow plain', 'sunflower']) t.is(await rounds(server, q, 1), 1, `one worker, q=${q}`);
  }
  // A write drops the kept choices (here `rainb ow` now leads), and the answer follows.
  await load('split_rounds', idsInShard('r-d', 2, 2).map((id, n) => ({ id, text: `rainb ow ${n}` })));
  t.is(await rounds(spread, 'rainbow', 2), 2, 'after a write: counted again');
  for (const q of ['rainbow', 'RAINBÓW!', 'rainbow sunflower']) t.deepEqual(await hits(spread, 'split_rounds', q), await hits(single, 'split_rounds', q), q);
  t.true((await hits(single, 'split_rounds', 'rainbow')).ids.every((id) => !id.startsWith('r-a')));
  // matchingStrategy frequency counts its terms with the same choices (its own two rounds, then the search).
  for (const q of ['rainbow plain', 'plain rainbow words']) {
    const body = { q, matchingStrategy: 'frequency', showRankingScore: true };
    const answers = await Promise.all(servers().map(async ([, server]) => (await server.client.post('/indexes/split_rounds/search', body)).body.hits));
    t.deepEqual(answers[0], answers[2], `frequency q=${q}`);
    t.deepEqual(answers[1], answers[2], `frequency q=${q}`);
  }
});

/** Seeded PRNG (mulberry32): the same queries on every run. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** Words of the text, as the tests glue them (lower case letters and digits). */
function wordsOf(text: string): string[] {
  return text.toLowerCase().split(/[^a-z0-9]+/).filter((word) => word.length > 0);
}

/**
 * Concatenations of two real words that split into two real words at another point as well
 * (`carpet`: `car pet`, `carp et`): [concatenation, [left, right] per split point].
 */
function competingSplits(vocabulary: Set<string>): [string, [string, string][]][] {
  const out = new Map<string, [string, string][]>();
  const byPrefix = new Map<string, string[]>();
  for (const word of vocabulary) {
    for (let end = 1; end < word.length; end++) {
      const list = byPrefix.get(word.slice(0, end)) ?? [];
      list.push(word);
      byPrefix.set(word.slice(0, end), list);
    }
  }
  // a = p + t with p a word; u = t + b with b a word: a + b = p + u, split at two points.
  for (const a of vocabulary) {
    for (let cut = 1; cut < a.length; cut++) {
      const p = a.slice(0, cut);
      const t = a.slice(cut);
      if (!vocabulary.has(p)) continue;
      for (const u of byPrefix.get(t) ?? []) {
        const b = u.slice(t.length);
        if (!vocabulary.has(b)) continue;
        out.set(a + b, [[a, b], [p, u]]);
      }
    }
  }
  return [...out].filter(([word]) => word.length <= 24).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
}

test('randomized: words of real npm text glued, with competing splits, answer alike on 3 shards (2 workers, 1 worker) and on 1 shard', async (t) => {
  const rows = readFileSync(join(REPO_ROOT, 'test/http/fixtures/npm-packages.tsv'), 'utf8').trim().split('\n').slice(1)
    .map((line) => line.split('\t')).map(([name, , , summary], n) => ({ id: `p${n}`, name: name!, summary: summary ?? '' }));
  const vocabulary = new Set(rows.flatMap((row) => wordsOf(row.summary)).filter((word) => word.length >= 2));
  const next = random(22);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const competing = competingSplits(vocabulary);
  t.true(competing.length > 50, `${competing.length} concatenations with competing splits`);
  // Each chosen concatenation's splits stand in a row in 1 to 4 real summaries each, spread over the shards by id.
  const chosen = Array.from({ length: 40 }, () => pick(competing));
  const documents: { id: string; name: string; summary: string }[] = rows.slice();
  let made = 0;
  for (const [, splits] of chosen) {
    for (const [left, right] of splits) {
      for (let copies = 1 + Math.floor(next() * 4); copies > 0; copies--) {
        const base = pick(rows);
        const words = wordsOf(base.summary);
        const at = Math.floor(next() * (words.length + 1));
        documents.push({ id: `s${made++}`, name: base.name, summary: [...words.slice(0, at), left, right, ...words.slice(at)].join(' ') });
      }
    }
  }
  await load('split_npm', documents, { searchableAttributes: ['name', 'summary'] });
  const queries: string[] = [];
  for (const [word] of chosen) queries.push(word, `${word} ${pick([...vocabulary])}`, `${pick([...vocabulary])} ${word}`);
  // Plain glued real words too (mostly one split point or none).
  while (queries.length < 200) {
    const words = wordsOf(pick(rows).summary);
    if (words.length < 2) continue;
    const at = Math.floor(next() * (words.length - 1));
    queries.push(words.slice(at, at + (next() < 0.25 ? 3 : 2)).join(''));
  }
  let differing = 0;
  for (const q of queries) {
    const expected = await hits(single, 'split_npm', q);
    for (const [name, server] of servers()) {
      if (server === single) continue;
      const answer = await hits(server, 'split_npm', q);
      if (JSON.stringify(answer) !== JSON.stringify(expected)) {
        differing++;
        if (differing <= 3) t.deepEqual(answer, expected, `${name} q=${q}`);
      }
    }
  }
  t.is(differing, 0, `answers differing from one shard's, of ${queries.length} queries on two servers`);
});
