// Spec 4.2.4 rules 1-7 and 14, plus the query-time settings: synonyms, stop words, typoTolerance,
// pagination.maxTotalHits. Each index is tiny so the expected order is unambiguous.
import test from 'ava';
import { startTestServer, type TestServer } from './harness.js';

let server: TestServer;

test.before(async () => {
  server = await startTestServer();
  const { client } = server;
  await Promise.all([
    client.addDocuments('rq_norm', [{ id: 1, title: 'Crème Brûlée' }, { id: 2, title: 'CREME fraiche' }, { id: 3, title: 'brulee' }]),
    client.addDocuments('rq_insertion', [3, 1, 2].map((id) => ({ id, title: `item ${id}` }))),
    client.addDocuments('rq_order', [{ id: 3, rank: 1 }, { id: 1, rank: 3 }, { id: 2, rank: 2 }]),
    client.addDocuments('rq_phrase', [
      { id: 1, text: 'the quick brown fox' },
      { id: 2, text: 'brown quick fox' },
      { id: 3, text: 'QUICK-brown dog' },
      { id: 4, text: 'quick. brown cat' },
      { id: 5, text: 'a brown fox' },
    ]),
    client.addDocuments('rq_pages', [1, 2, 3, 4, 5].map((id) => ({ id, kind: 'page' }))),
    client.addDocuments('rq_capped', [1, 2, 3, 4, 5].map((id) => ({ id, kind: 'capped' }))),
    client.addDocuments('rq_words', [
      { id: 1, colors: 'red green blue' },
      { id: 2, colors: 'red green' },
      { id: 3, colors: 'red' },
      { id: 4, colors: 'green blue' },
    ]),
    client.addDocuments('rq_synonyms', [
      { id: 1, text: 'fast automobile' },
      { id: 2, text: 'fast car' },
      { id: 3, text: 'living in san francisco' },
      { id: 4, text: 'red sofa' },
      { id: 5, text: 'old couch' },
      { id: 6, text: 'san diego and francisco' },
      { id: 7, text: 'ny pizza' },
      { id: 8, text: 'new york city' },
    ]),
    client.addDocuments('rq_stop', [{ id: 1, title: 'the lord of the rings' }, { id: 2, title: 'lord rings' }, { id: 3, title: 'the hobbit' }]),
    client.addDocuments('rq_typo_off', [{ id: 1, word: 'house' }, { id: 2, word: 'lamp' }]),
    client.addDocuments('rq_typo_sizes', [{ id: 1, word: 'house' }, { id: 2, word: 'lamp' }]),
    client.addDocuments('rq_typo_words', [{ id: 1, word: 'shrek' }, { id: 2, word: 'shrak' }]),
    client.addDocuments('rq_separators', [{ id: 1, text: 'C# and F# at dev@example' }, { id: 2, text: 'c and fʼsharp' }, { id: 3, text: 'J. R. R. Tolkien' }, { id: 4, text: 'r and j' }]),
    client.addDocuments('rq_typo_attrs', [{ id: 1, code: 'shrak tale', name: 'x' }, { id: 2, code: 'x', name: 'shrak' }]),
  ]);
  await Promise.all([
    client.run('PATCH', '/indexes/rq_capped/settings', { body: { pagination: { maxTotalHits: 3 } } }),
    client.run('PATCH', '/indexes/rq_order/settings', { body: { rankingRules: ['words', 'typo', 'rank:desc', 'exactness'] } }),
    client.run('PUT', '/indexes/rq_synonyms/settings/synonyms', {
      body: { car: ['automobile'], sf: ['san francisco'], sofa: ['couch'], couch: ['sofa'], 'New York': ['NY'] },
    }),
    client.run('PUT', '/indexes/rq_stop/settings/stop-words', { body: ['the', 'of'] }),
    client.run('PATCH', '/indexes/rq_typo_off/settings/typo-tolerance', { body: { enabled: false } }),
    client.run('PATCH', '/indexes/rq_typo_sizes/settings/typo-tolerance', { body: { minWordSizeForTypos: { oneTypo: 4 } } }),
    client.run('PATCH', '/indexes/rq_typo_words/settings/typo-tolerance', { body: { disableOnWords: ['Shrek'] } }),
    client.run('PATCH', '/indexes/rq_separators/settings', { body: { nonSeparatorTokens: ['#', '@'], separatorTokens: ['ʼ'], dictionary: ['J. R. R.'] } }),
    client.run('PATCH', '/indexes/rq_typo_attrs/settings/typo-tolerance', { body: { disableOnAttributes: ['code'] } }),
  ]);
});
test.after.always(async () => {
  await server?.close();
});

type Hit = { id: number };
const search = (index: string, body: object) => server.client.post(`/indexes/${index}/search`, body);
const ids = async (index: string, body: object) => {
  const response = await search(index, body);
  if (response.status !== 200) throw new Error(response.text);
  return (response.body.hits as Hit[]).map((hit) => hit.id);
};
const sorted = (list: number[]) => [...list].sort((a, b) => a - b);

test('rule 1: accents and case are ignored on both sides', async (t) => {
  t.deepEqual(sorted(await ids('rq_norm', { q: 'CRÉME ' })), [1, 2]);
  t.deepEqual(await ids('rq_norm', { q: 'crème brûlée', matchingStrategy: 'all' }), [1]);
  t.deepEqual(sorted(await ids('rq_norm', { q: 'BRÛLEE' })), [1, 3]);
});

test('rule 2: placeholder search ignores built-in rules and keeps insertion order', async (t) => {
  t.deepEqual(await ids('rq_insertion', {}), [3, 1, 2]);
  t.deepEqual(await ids('rq_insertion', { q: '' }), [3, 1, 2]);
  // Custom ranking rules still apply (rank:desc); words/typo/exactness do not.
  t.deepEqual(await ids('rq_order', {}), [1, 2, 3]);
});

test('rule 3: a phrase needs its words in order, ignores case and soft separators', async (t) => {
  t.deepEqual(sorted(await ids('rq_phrase', { q: '"quick brown"' })), [1, 3]);
  // A hard separator inside the phrase splits it: each part alone must match.
  t.deepEqual(sorted(await ids('rq_phrase', { q: '"quick. brown"' })), [1, 2, 3, 4]);
  // Phrase and word combined: documents with both first, then the phrase alone (last word dropped).
  t.deepEqual(await ids('rq_phrase', { q: '"brown fox" quick' }), [1, 5]);
});

test('rule 4: offset/limit give estimatedTotalHits; page/hitsPerPage give totalHits and totalPages and ignore offset/limit', async (t) => {
  const offset = await search('rq_pages', { offset: 1, limit: 2 });
  t.deepEqual(offset.body.hits.map((hit: Hit) => hit.id), [2, 3]);
  t.is(offset.body.estimatedTotalHits, 5);
  t.false('totalHits' in offset.body);
  const page = await search('rq_pages', { page: 2, hitsPerPage: 2, offset: 4, limit: 1 });
  t.deepEqual(page.body.hits.map((hit: Hit) => hit.id), [3, 4]);
  t.like(page.body, { hitsPerPage: 2, page: 2, totalPages: 3, totalHits: 5 });
  t.false('estimatedTotalHits' in page.body);
  t.false('offset' in page.body);
});

test('rule 5: hitsPerPage 0 and page 0 return no documents but exhaustive counts', async (t) => {
  const none = await search('rq_pages', { hitsPerPage: 0 });
  t.deepEqual(none.body.hits, []);
  t.like(none.body, { hitsPerPage: 0, page: 1, totalPages: 0, totalHits: 5 });
  const zero = await search('rq_pages', { page: 0, hitsPerPage: 2 });
  t.deepEqual(zero.body.hits, []);
  t.like(zero.body, { hitsPerPage: 2, page: 0, totalPages: 3, totalHits: 5 });
});

test('rule 6: totalPages is ceil(totalHits / hitsPerPage)', async (t) => {
  for (const [hitsPerPage, totalPages] of [[1, 5], [2, 3], [5, 1], [6, 1]] as const) {
    t.is((await search('rq_pages', { hitsPerPage })).body.totalPages, totalPages);
  }
});

test('rule 7: maxTotalHits caps both estimatedTotalHits and totalHits, and the reachable hits', async (t) => {
  const offset = await search('rq_capped', { limit: 10 });
  t.is(offset.body.estimatedTotalHits, 3);
  t.is(offset.body.hits.length, 3);
  const page = await search('rq_capped', { hitsPerPage: 2, page: 2 });
  t.like(page.body, { totalHits: 3, totalPages: 2 });
  t.deepEqual(page.body.hits.map((hit: Hit) => hit.id), [3]);
  const settings = await server.client.get('/indexes/rq_capped/settings/pagination');
  t.deepEqual(settings.body, { maxTotalHits: 3 });
});

test('rule 14: matchingStrategy last drops words from the end; all needs every word', async (t) => {
  t.deepEqual(await ids('rq_words', { q: 'red green blue' }), [1, 2, 3]);
  t.deepEqual(await ids('rq_words', { q: 'red green blue', matchingStrategy: 'all' }), [1]);
  t.deepEqual(await ids('rq_words', { q: 'blue green', matchingStrategy: 'last' }), [1, 4]);
});

test('synonyms: one-way entries, mutual pairs, multi-word alternatives', async (t) => {
  t.deepEqual(sorted(await ids('rq_synonyms', { q: 'car' })), [1, 2]);
  t.deepEqual(await ids('rq_synonyms', { q: 'automobile' }), [1]);
  t.deepEqual(await ids('rq_synonyms', { q: 'sf' }), [3]);
  t.deepEqual(sorted(await ids('rq_synonyms', { q: 'sofa' })), [4, 5]);
  t.deepEqual(sorted(await ids('rq_synonyms', { q: 'couch' })), [4, 5]);
  const settings = await server.client.get('/indexes/rq_synonyms/settings/synonyms');
  t.deepEqual(Object.keys(settings.body), ['New York', 'car', 'couch', 'sf', 'sofa']);
  // A multi-word key: the words of the query together also match the alternative.
  t.deepEqual(sorted(await ids('rq_synonyms', { q: 'new york', matchingStrategy: 'all' })), [7, 8]);
  t.deepEqual(await ids('rq_synonyms', { q: 'ny' }), [7]);
  const highlighted = await search('rq_synonyms', { q: 'new york', matchingStrategy: 'all', attributesToHighlight: ['text'], filter: null });
  t.true(highlighted.body.hits.some((hit: any) => hit._formatted.text === '<em>ny</em> pizza'));
});

test('stop words are dropped from the query (not as its last word) and not required', async (t) => {
  t.deepEqual(sorted(await ids('rq_stop', { q: 'the rings', matchingStrategy: 'all' })), [1, 2]);
  t.deepEqual(sorted(await ids('rq_stop', { q: 'lord of the rings', matchingStrategy: 'all' })), [1, 2]);
  t.deepEqual(await ids('rq_stop', { q: '"lord of the rings"' }), [1]);
});

test('typoTolerance.enabled false: exact and prefix matches only', async (t) => {
  t.deepEqual(await ids('rq_typo_off', { q: 'hause ' }), []);
  t.deepEqual(await ids('rq_typo_off', { q: 'hous' }), [1]);
});

test('typoTolerance.minWordSizeForTypos changes the typo budget', async (t) => {
  t.deepEqual(await ids('rq_typo_sizes', { q: 'lamb ' }), [2]);
  t.deepEqual(await ids('rq_typo_off', { q: 'lamb ' }), []);
});

test('typoTolerance.disableOnWords: listed query words match exactly only', async (t) => {
  t.deepEqual(await ids('rq_typo_words', { q: 'shrek ' }), [1]);
  t.deepEqual(sorted(await ids('rq_typo_words', { q: 'shrak ' })), [1, 2]);
});

test('typoTolerance.disableOnAttributes: no typo matches inside the listed attributes', async (t) => {
  t.deepEqual(await ids('rq_typo_attrs', { q: 'shrek ' }), [2]);
  t.deepEqual(sorted(await ids('rq_typo_attrs', { q: 'shrak ' })), [1, 2]);
  // Prefixes and phrases still match there.
  t.deepEqual(sorted(await ids('rq_typo_attrs', { q: 'shr' })), [1, 2]);
  t.deepEqual(await ids('rq_typo_attrs', { q: '"shrak tale"' }), [1]);
});

test('dictionary entries are single words, on both sides', async (t) => {
  t.deepEqual(await ids('rq_separators', { q: 'j. r. r.' }), [3]);
  t.deepEqual(await ids('rq_separators', { q: 'j r', matchingStrategy: 'all' }), [4]);
  const highlighted = await search('rq_separators', { q: 'J. R. R.', attributesToHighlight: ['text'] });
  t.is(highlighted.body.hits[0]._formatted.text, '<em>J. R. R.</em> Tolkien');
});

test('nonSeparatorTokens join words; separatorTokens split them (one-character tokens)', async (t) => {
  t.deepEqual(await ids('rq_separators', { q: 'c# ' }), [1]);
  t.deepEqual(await ids('rq_separators', { q: 'dev@example' }), [1]);
  t.deepEqual(await ids('rq_separators', { q: 'c ' }), [2]);
  t.deepEqual(await ids('rq_separators', { q: 'sharp' }), [2]);
  const highlighted = await search('rq_separators', { q: 'f#', attributesToHighlight: ['text'] });
  t.is(highlighted.body.hits[0]._formatted.text, 'C# and <em>F#</em> at dev@example');
});
