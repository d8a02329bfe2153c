// Query features as Meilisearch v1.53 has them (issue 22): facet search's typo settings and
// exhaustiveFacetCount, the negative operator, matchingStrategy "frequency".
import test from 'ava';
import { startTestServer, type TestServer } from './harness.js';

let server: TestServer;

test.before(async () => {
  server = await startTestServer({ shardsPerIndex: 3 });
});
test.after.always(async () => {
  await server?.close();
});

const GENRES = [
  { id: 1, title: 'dracula', genre: 'Horror', kind: 'Horror' },
  { id: 2, title: 'carrie', genre: 'Horror', kind: 'Horror' },
  { id: 3, title: 'emma', genre: 'Romance', kind: 'Romance' },
  { id: 4, title: 'dune', genre: 'Science Fiction', kind: 'Science Fiction' },
];

async function facetValues(index: string, body: Record<string, unknown>): Promise<string[]> {
  const response = await server.client.post(`/indexes/${index}/facet-search`, body);
  if (response.status !== 200) throw new Error(`facet-search ${JSON.stringify(body)}: ${response.status} ${response.text}`);
  return response.body.facetHits.map((hit: { value: string }) => hit.value);
}

test('facet search applies typoTolerance: enabled, minWordSizeForTypos, disableOnAttributes, disableOnWords, transpositions', async (t) => {
  const index = 'facet_typos';
  await server.client.run('PATCH', `/indexes/${index}/settings`, { body: { filterableAttributes: ['genre', 'kind'] } });
  await server.client.addDocuments(index, GENRES);
  // Defaults: 1 typo from 5 bytes, an adjacent transposition is one typo.
  t.deepEqual(await facetValues(index, { facetName: 'genre', facetQuery: 'horor' }), ['Horror']);
  t.deepEqual(await facetValues(index, { facetName: 'genre', facetQuery: 'hroror' }), ['Horror'], 'transposition');
  t.deepEqual(await facetValues(index, { facetName: 'genre', facetQuery: 'hor' }), ['Horror']);
  t.deepEqual(await facetValues(index, { facetName: 'genre', facetQuery: 'horo' }), [], '4 bytes: no typo');

  await server.client.run('PATCH', `/indexes/${index}/settings`, { body: { typoTolerance: { minWordSizeForTypos: { oneTypo: 6, twoTypos: 8 } } } });
  t.deepEqual(await facetValues(index, { facetName: 'genre', facetQuery: 'horor' }), [], 'oneTypo 6: 5 bytes is exact');
  t.deepEqual(await facetValues(index, { facetName: 'genre', facetQuery: 'horrxr' }), ['Horror']);
  t.deepEqual(await facetValues(index, { facetName: 'genre', facetQuery: 'scyence fx' }), ['Science Fiction'], 'two typos from 8 bytes');

  await server.client.run('PATCH', `/indexes/${index}/settings`, { body: { typoTolerance: { minWordSizeForTypos: { oneTypo: 5, twoTypos: 9 }, disableOnAttributes: ['genre'] } } });
  t.deepEqual(await facetValues(index, { facetName: 'genre', facetQuery: 'horor' }), [], 'no typo on a disableOnAttributes facet');
  t.deepEqual(await facetValues(index, { facetName: 'genre', facetQuery: 'hor' }), ['Horror'], 'prefixes still match');
  t.deepEqual(await facetValues(index, { facetName: 'kind', facetQuery: 'horor' }), ['Horror'], 'other facets keep typos');

  await server.client.run('PATCH', `/indexes/${index}/settings`, { body: { typoTolerance: { disableOnAttributes: [], disableOnWords: ['horor', 'Romance'] } } });
  t.deepEqual(await facetValues(index, { facetName: 'genre', facetQuery: 'horor' }), [], 'a disableOnWords query matches exactly');
  t.deepEqual(await facetValues(index, { facetName: 'genre', facetQuery: 'ROMANCE' }), ['Romance']);
  t.deepEqual(await facetValues(index, { facetName: 'genre', facetQuery: 'horro' }), ['Horror'], 'other queries keep typos and prefixes');

  await server.client.run('PATCH', `/indexes/${index}/settings`, { body: { typoTolerance: { enabled: false, disableOnWords: [] } } });
  t.deepEqual(await facetValues(index, { facetName: 'genre', facetQuery: 'horor' }), [], 'typos disabled');
  t.deepEqual(await facetValues(index, { facetName: 'genre', facetQuery: 'scien' }), ['Science Fiction']);

  // Hostile: a long query against disabled typos stays a plain prefix test.
  t.deepEqual(await facetValues(index, { facetName: 'genre', facetQuery: 'h'.repeat(500) }), []);
  const disabled = await server.client.patch(`/indexes/${index}/settings`, { facetSearch: false });
  await server.client.waitForTask(disabled.body.taskUid);
  const refused = await server.client.post(`/indexes/${index}/facet-search`, { facetName: 'genre', facetQuery: 'hor' });
  t.is(refused.status, 400);
  t.is(refused.body.code, 'facet_search_disabled');
  t.is(refused.body.type, 'invalid_request');
});

const MOVIES = [
  { title: 'Shazam!', id: '287947', color: ['green', 'blue'] },
  { title: 'Captain Marvel', id: '299537', color: ['yellow', 'blue'] },
  { title: 'Escape Room', id: '522681', color: ['yellow', 'red'] },
  { title: 'How to Train Your Dragon: The Hidden World', id: '166428', color: ['green', 'red'] },
  { title: 'Gläss', id: '450465', color: ['blue', 'red'] },
];

async function searchIds(index: string, body: Record<string, unknown>): Promise<string[]> {
  const response = await server.client.post(`/indexes/${index}/search`, body);
  if (response.status !== 200) throw new Error(`search ${JSON.stringify(body)}: ${response.status} ${response.text}`);
  return response.body.hits.map((hit: { id: string }) => hit.id).sort();
}

test('the negative operator: -word and -"phrase" exclude documents; a lone - negates nothing; synonyms are not excluded', async (t) => {
  const index = 'negation';
  await server.client.addDocuments(index, MOVIES);
  const all = MOVIES.map((movie) => movie.id).sort();
  const without = (...ids: string[]) => all.filter((id) => !ids.includes(id));
  // Only negations: every document but those (a placeholder search).
  t.deepEqual(await searchIds(index, { q: '-escape' }), without('522681'));
  t.deepEqual(await searchIds(index, { q: '-"train your dragon"' }), without('166428'));
  t.deepEqual(await searchIds(index, { q: '-"your train dragon"' }), all, 'a phrase matches its words in a row only');
  t.deepEqual(await searchIds(index, { q: '-escape -shazam' }), without('522681', '287947'));
  // Meilisearch's own cases (tests/search/mod.rs): negated words and derivations of the same word.
  t.deepEqual(await searchIds(index, { q: '-escape escape' }), []);
  t.deepEqual(await searchIds(index, { q: '- escape' }), ['522681'], 'a lone - is a separator');
  t.deepEqual(await searchIds(index, { q: '- "train your dragon"' }), ['166428']);
  t.deepEqual(await searchIds(index, { q: 'room-escape' }), ['522681'], 'a - inside a word negates nothing');
  t.deepEqual(await searchIds(index, { q: '--escape' }), ['522681'], 'a double - negates nothing');
  t.deepEqual(await searchIds(index, { q: '-' }), all);
  // Exact words only: a typo or a prefix of the negated word excludes nothing.
  t.deepEqual(await searchIds(index, { q: '-escap' }), all);
  t.deepEqual(await searchIds(index, { q: 'red -dragon' }), ['450465', '522681']);
  // Negated words are no query terms: they neither rank, count for matchingStrategy all, nor highlight.
  const formatted = await server.client.post(`/indexes/${index}/search`, { q: 'escape -marvel', attributesToHighlight: ['title'], matchingStrategy: 'all', showRankingScore: true });
  t.deepEqual(formatted.body.hits.map((hit: any) => hit._formatted.title), ['<em>Escape</em> Room']);
  t.is(formatted.body.hits[0]._rankingScore, (await server.client.post(`/indexes/${index}/search`, { q: 'escape', showRankingScore: true })).body.hits[0]._rankingScore);
  t.is(formatted.body.query, 'escape -marvel');
  const negatedOnly = await server.client.post(`/indexes/${index}/search`, { q: '-escape', attributesToHighlight: ['title'], showRankingScore: true });
  t.true(negatedOnly.body.hits.every((hit: any) => hit._rankingScore === 1 && !hit._formatted.title.includes('<em>')));
  t.is(negatedOnly.body.estimatedTotalHits, 4);
  // With filter and facets: the exclusion applies before both.
  await server.client.run('PATCH', `/indexes/${index}/settings`, { body: { filterableAttributes: ['color'] } });
  const faceted = await server.client.post(`/indexes/${index}/search`, { q: '-escape', filter: 'color = red', facets: ['color'] });
  t.deepEqual(faceted.body.hits.map((hit: any) => hit.id).sort(), ['166428', '450465']);
  t.deepEqual(faceted.body.facetDistribution.color, { blue: 1, green: 1, red: 2 });
  // Synonyms of a negated word are not excluded (Meilisearch's negative_special_cases_search).
  await server.client.run('PATCH', `/indexes/${index}/settings`, { body: { synonyms: { escape: ['gläss'] } } });
  t.deepEqual(await searchIds(index, { q: '-escape escape' }), ['450465']);
  // Hostile: many negations, long words, unclosed negative phrase.
  t.deepEqual(await searchIds(index, { q: Array.from({ length: 300 }, (_, k) => `-w${k}`).join(' ') }), all);
  t.deepEqual(await searchIds(index, { q: `-${'x'.repeat(5000)}` }), all);
  t.deepEqual(await searchIds(index, { q: '-"hidden world' }), without('166428'));
});

test('matchingStrategy frequency drops the most frequent terms first, by whole-index frequencies on every shard', async (t) => {
  const index = 'frequency';
  const documents: { id: number; text: string }[] = [];
  // common: 13 documents, rare: 11, both in 4: close counts, so some shard alone would often weigh them the other way.
  for (let id = 0; id < 40; id++) {
    const words = [id < 13 ? 'common' : '', id >= 9 && id < 20 ? 'rare' : '', `filler${id % 3}`].filter(Boolean);
    documents.push({ id, text: words.join(' ') });
  }
  documents.push({ id: 100, text: 'alpha beta gamma' }, { id: 101, text: 'alpha' }, { id: 102, text: 'beta' }, { id: 103, text: 'gamma' });
  await server.client.addDocuments(index, documents);
  const ids = async (body: Record<string, unknown>) => {
    const response = await server.client.post(`/indexes/${index}/search`, { limit: 100, ...body });
    if (response.status !== 200) throw new Error(response.text);
    return response.body.hits.map((hit: { id: number }) => hit.id);
  };
  const both = [9, 10, 11, 12];
  const rareOnly = [13, 14, 15, 16, 17, 18, 19];
  // `last` drops `rare` (the last term); `frequency` drops `common` (13 documents against 11).
  const last = await ids({ q: 'common rare', matchingStrategy: 'last' });
  t.deepEqual(last.slice(0, 4).sort((a: number, b: number) => a - b), both);
  t.is(last.length, 13);
  const frequency = await ids({ q: 'common rare', matchingStrategy: 'frequency' });
  t.deepEqual(frequency.slice(0, 4).sort((a: number, b: number) => a - b), both);
  t.deepEqual(frequency.slice(4).sort((a: number, b: number) => a - b), rareOnly);
  t.deepEqual(await ids({ q: 'rare common', matchingStrategy: 'frequency' }).then((hits) => hits.length), 11, 'the order in the query does not matter');
  // A term matching nothing goes first of all; `last` would keep it and find nothing.
  t.deepEqual(await ids({ q: 'zzzzq common rare', matchingStrategy: 'last' }), []);
  t.is((await ids({ q: 'zzzzq common rare', matchingStrategy: 'frequency' })).length, 11);
  // Terms of equal frequency go together, and the least frequent stay: alpha, beta and gamma match two documents each.
  t.deepEqual(await ids({ q: 'alpha beta gamma', matchingStrategy: 'frequency' }), [100]);
  t.is((await ids({ q: 'alpha beta gamma', matchingStrategy: 'last' })).length, 2);
  // A phrase is never dropped, so every word may go.
  t.deepEqual((await ids({ q: '"filler1" common rare', matchingStrategy: 'frequency' })).length, 13);
  // Facet search and multi-search take the strategy too; a bad value is refused.
  const multi = await server.client.post('/multi-search', { queries: [{ indexUid: index, q: 'common rare', matchingStrategy: 'frequency', limit: 100 }] });
  t.is(multi.body.results[0].hits.length, 11);
  const bad = await server.client.post(`/indexes/${index}/search`, { q: 'a', matchingStrategy: 'most' });
  t.is(bad.status, 400);
  t.is(bad.body.code, 'invalid_search_matching_strategy');
});

test('word concatenation (2- and 3-grams) and splitting, at their typo cost', async (t) => {
  const index = 'ngrams';
  await server.client.addDocuments(index, [
    { id: 1, text: 'sunflower seeds' },
    { id: 2, text: 'sun flower' },
    { id: 3, text: 'the sun and a flower' },
    { id: 4, text: 'newyorkcity' },
    { id: 5, text: 'new york city guide' },
    { id: 6, text: 'york' },
    { id: 7, text: 'sunflowers field' },
  ]);
  const ids = async (q: string, more: Record<string, unknown> = {}) => {
    const response = await server.client.post(`/indexes/${index}/search`, { q, ...more });
    if (response.status !== 200) throw new Error(response.text);
    return response.body.hits.map((hit: { id: number }) => hit.id);
  };
  // `sun flower` also matches `sunflower` (and, last word a prefix, `sunflowers`) whole, after the 0-typo matches.
  t.deepEqual(await ids('sun flower'), [2, 3, 1, 7]);
  t.deepEqual(await ids('sun flower', { matchingStrategy: 'all' }), [2, 3, 1, 7]);
  t.deepEqual(await ids('sun flower '), [2, 3, 1, 7], 'no prefix, but `sunflower` has 9 letters: 2 typos less one for the extra word');
  t.deepEqual(await ids('sun flowe '), [2, 3], 'no prefix: `sunflowe` has 8 letters, 1 typo less one: none');
  // Three words in a row: `newyorkcity`, after the documents with the three words.
  t.deepEqual(await ids('new york city', { matchingStrategy: 'all' }), [5, 4]);
  t.deepEqual(await ids('new, york city', { matchingStrategy: 'all' }), [5], 'a hard separator breaks the run');
  // Splitting: `sunflower` also matches `sun flower` in a row (one typo), not apart.
  const split = await ids('sunflower ');
  t.is(split[0], 1);
  t.deepEqual(split.slice(1).sort(), [2, 7], 'one typo each: the split, and `sunflowers`');
  t.deepEqual(await ids('newyork ', { matchingStrategy: 'all' }), [5]);
  t.deepEqual(await ids('newyork', { matchingStrategy: 'all' }), [4, 5], 'as a prefix, `newyorkcity` first (no typo)');
  // Hostile: long words and long runs of words stay bounded.
  t.deepEqual(await ids('s'.repeat(120)), []);
  t.deepEqual(await ids('sunflower'.repeat(12)), []);
  t.true(Array.isArray(await ids(Array.from({ length: 10 }, () => 'sun flower').join(' '))));
});

test('facet search exhaustiveFacetCount: with a distinct attribute, one document per distinct value counts', async (t) => {
  const index = 'facet_exhaustive';
  await server.client.run('PATCH', `/indexes/${index}/settings`, { body: { filterableAttributes: ['genre', 'family'], distinctAttribute: 'family' } });
  await server.client.addDocuments(index, [
    { id: 1, family: 'a', genre: 'Horror', title: 'night one' },
    { id: 2, family: 'a', genre: 'Horror', title: 'night two' },
    { id: 3, family: 'b', genre: 'Romance', title: 'night three' },
    { id: 4, genre: 'Romance', title: 'night four' },
    { id: 5, genre: 'Horror', title: 'day five' },
  ]);
  const counts = async (body: Record<string, unknown>) => {
    const response = await server.client.post(`/indexes/${index}/facet-search`, { facetName: 'genre', ...body });
    if (response.status !== 200) throw new Error(response.text);
    return Object.fromEntries(response.body.facetHits.map((hit: { value: string; count: number }) => [hit.value, hit.count]));
  };
  t.deepEqual(await counts({}), { Horror: 3, Romance: 2 }, 'not exhaustive: every matching document');
  t.deepEqual(await counts({ exhaustiveFacetCount: false }), { Horror: 3, Romance: 2 });
  t.deepEqual(await counts({ exhaustiveFacetCount: true }), { Horror: 2, Romance: 2 }, 'family a counts once');
  t.deepEqual(await counts({ exhaustiveFacetCount: true, q: 'night' }), { Horror: 1, Romance: 2 });
  t.deepEqual(await counts({ exhaustiveFacetCount: true, filter: 'genre = Romance' }), { Romance: 2 });
  t.deepEqual(await counts({ exhaustiveFacetCount: true, facetQuery: 'hor' }), { Horror: 2 });
  const bad = await server.client.post(`/indexes/${index}/facet-search`, { facetName: 'genre', exhaustiveFacetCount: 'yes' });
  t.is(bad.status, 400);
  t.is(bad.body.code, 'invalid_facet_search_exhaustive_facet_count');
});

test('a split word is one occurrence where its halves stand in a row, not wherever either half is (scores do not depend on other documents)', async (t) => {
  // Real npm summaries (test/http/fixtures/npm-packages.tsv p798, p1550, p1373): `its` splits into `it s`,
  // which p1373 holds in a row ("at it's core"). p1550's loose `s` ("method(s)") is no occurrence of `its`.
  const p798 = { id: 'p798', name: '@types/engine.io-client', summary: 'Stub TypeScript definitions entry for engine.io-client, which provides its own types definitions' };
  const p1550 = { id: 'p1550', name: 'proxy-method', summary: 'Straight-forward way of interception method(s) before and/or after its execution.' };
  const p1373 = { id: 'p1373', name: 'lodash-decorators-esm', summary: "A collection of decorators using lodash at it's core." };
  // One shard: a split is found per shard, and the bug needed the pair in the same shard.
  const single = await startTestServer({ shardsPerIndex: 1 });
  t.teardown(() => single.close());
  const details = async (index: string, q: string, id: string) => {
    const response = await single.client.post(`/indexes/${index}/search`, { q, showRankingScoreDetails: true, showRankingScore: true });
    if (response.status !== 200) throw new Error(response.text);
    return response.body.hits.find((hit: { id: string }) => hit.id === id);
  };
  for (const index of ['split_alone', 'split_with_pair']) {
    await single.client.run('PATCH', `/indexes/${index}/settings`, { body: { searchableAttributes: ['name', 'summary'] } });
  }
  await single.client.addDocuments('split_alone', [p798, p1550]);
  await single.client.addDocuments('split_with_pair', [p798, p1550, p1373]);
  for (const q of ['its', 'its execution', 'after its', 'its ']) {
    const alone = await details('split_alone', q, 'p1550');
    const withPair = await details('split_with_pair', q, 'p1550');
    t.deepEqual(withPair._rankingScoreDetails, alone._rankingScoreDetails, `q=${q}`);
    t.is(withPair._rankingScore, alone._rankingScore, `q=${q}`);
  }
  // The split still matches where its halves stand in a row, at one typo.
  const split = await details('split_with_pair', 'its ', 'p1373');
  t.truthy(split, 'p1373 matches `its` through its split');
  t.is(split._rankingScoreDetails.typo.typoCount, 1);
});
