// Spec 4.2.4 rules 10 (crop), 11 (highlight), 12 (matches positions) and showRankingScore, each on a
// tiny dataset where the expected content is unambiguous.
import test from 'ava';
import { startTestServer, type TestServer } from './harness.js';

let server: TestServer;

test.before(async () => {
  server = await startTestServer();
  const { client } = server;
  await Promise.all([
    client.addDocuments('fmt_books', [
      { id: 1, title: 'The Hobbit', year: 1937, tags: ['fantasy', 'dragon'], author: { name: 'Tolkien', country: 'England' },
        overview: 'A hobbit named Bilbo joins a company of dwarves. They travel far to reclaim a treasure guarded by a dragon. Bilbo comes home changed.' },
      { id: 2, title: 'Crème Brûlée', year: 2001, tags: ['dessert'], author: { name: 'Chef' }, overview: 'A dessert.' },
    ]),
  ]);
  await client.addDocuments('fmt_sorted', [{ id: 1, year: 1937 }, { id: 2, year: 2001 }]);
  await client.run('PATCH', '/indexes/fmt_sorted/settings', { body: { sortableAttributes: ['year'], rankingRules: ['year:desc', 'words'] } });
  await client.run('PATCH', '/indexes/fmt_books/settings', { body: { searchableAttributes: ['title', 'overview'], synonyms: { wyrm: ['dragon'] }, stopWords: ['the', 'a'] } });
});
test.after.always(async () => {
  await server?.close();
});

const search = (body: object) => server.client.post('/indexes/fmt_books/search', body);

test('rule 11: highlight wraps matches with the given tags in strings, numbers, arrays and objects', async (t) => {
  const response = await search({ q: 'dragon 1937 england', attributesToHighlight: ['*'], highlightPreTag: '{{', highlightPostTag: '}}',
    attributesToRetrieve: ['id', 'year', 'tags', 'author'] });
  t.is(response.status, 200);
  const [hit] = response.body.hits;
  // "*" formats every displayed attribute, not only the retrieved ones (Meilisearch's compute_formatted_options).
  t.deepEqual(hit._formatted, {
    id: '1', title: 'The Hobbit', year: '{{1937}}', tags: ['fantasy', '{{dragon}}'], author: { name: 'Tolkien', country: '{{England}}' },
    overview: 'A hobbit named Bilbo joins a company of dwarves. They travel far to reclaim a treasure guarded by a {{dragon}}. Bilbo comes home changed.',
  });
  t.deepEqual(Object.keys(hit), ['id', 'year', 'tags', 'author', '_formatted']);
});

test('rule 11: non-searchable attributes are highlighted, prefix only on its part, synonyms too', async (t) => {
  const response = await search({ q: 'wyrm hob', attributesToHighlight: ['tags', 'title'], attributesToRetrieve: ['id'] });
  const hit = response.body.hits[0];
  t.is(hit.id, 1);
  t.deepEqual(hit._formatted, { id: '1', tags: ['fantasy', '<em>dragon</em>'], title: 'The <em>Hob</em>bit' });
});

test('rule 10: crop around the match with markers only where text was removed; attr:N overrides cropLength', async (t) => {
  const response = await search({ q: 'treasure', attributesToCrop: ['overview:4', 'title'], cropLength: 1, cropMarker: '[…]', attributesToRetrieve: ['id'] });
  const hit = response.body.hits[0];
  // Milli's crop_bounds: the odd word left over goes before the match.
  t.is(hit._formatted.overview, '[…]reclaim a treasure guarded[…]');
  t.is(hit._formatted.title, 'The[…]');
});

test('rule 10: with no match the crop starts at the first word; crop and highlight combine', async (t) => {
  const noMatch = await search({ q: 'dessert', filter: null, attributesToCrop: ['overview'], cropLength: 3, attributesToRetrieve: ['id'] });
  const hobbit = noMatch.body.hits.find((hit: any) => hit.id === 1);
  t.is(hobbit, undefined);
  const both = await search({ q: 'bilbo', attributesToCrop: ['overview'], attributesToHighlight: ['overview'], cropLength: 3, attributesToRetrieve: ['id'] });
  t.is(both.body.hits[0]._formatted.overview, '…named <em>Bilbo</em> joins…');
  const star = await search({ q: 'title', attributesToCrop: ['*'], cropLength: 2, attributesToRetrieve: ['overview'] });
  t.deepEqual(star.body.hits, []);
  const placeholder = await search({ attributesToCrop: ['overview'], cropLength: 3, attributesToRetrieve: ['id'] });
  t.is(placeholder.body.hits[0]._formatted.overview, 'A hobbit named…');
  t.is(placeholder.body.hits[1]._formatted.overview, 'A dessert.');
});

test('rule 12: _matchesPosition gives UTF-8 byte offsets, also for numbers, arrays and non-searchable fields', async (t) => {
  const response = await search({ q: 'brulee 2001 dessert', showMatchesPosition: true, attributesToRetrieve: ['id'] });
  const hit = response.body.hits[0];
  t.is(hit.id, 2);
  t.deepEqual(hit._matchesPosition, {
    title: [{ start: 7, length: 8 }],
    year: [{ start: 0, length: 4 }],
    tags: [{ start: 0, length: 7, indices: [0] }],
    overview: [{ start: 2, length: 7 }],
  });
  t.false('_formatted' in hit);
});

test('showRankingScore: _rankingScore in [0, 1], 1 for a placeholder search, better hits score higher', async (t) => {
  const placeholder = await search({ showRankingScore: true });
  t.true(placeholder.body.hits.every((hit: any) => hit._rankingScore === 1));
  // Sort and custom rules stay out of the score (Meilisearch): a sorted placeholder search still scores 1.
  const sorted = await server.client.post('/indexes/fmt_sorted/search', { showRankingScore: true });
  t.deepEqual(sorted.body.hits.map((hit: any) => [hit.id, hit._rankingScore]), [[2, 1], [1, 1]]);
  const ranked = await search({ q: 'd', showRankingScore: true });
  const scores: number[] = ranked.body.hits.map((hit: any) => hit._rankingScore);
  t.is(scores.length, 2);
  t.true(scores.every((score) => score > 0 && score <= 1));
  t.true(scores[0]! >= scores[1]!);
});

test('rule 11: stop words of the query are highlighted too; GET takes the same shaping parameters', async (t) => {
  const response = await server.client.get('/indexes/fmt_books/search?q=the%20hobbit&attributesToHighlight=title,year&attributesToRetrieve=id&cropLength=1&attributesToCrop=overview');
  t.is(response.status, 200);
  const hit = response.body.hits[0];
  t.deepEqual(hit._formatted, { id: '1', title: '<em>The</em> <em>Hobbit</em>', year: '1937', overview: '…hobbit…' });
});
